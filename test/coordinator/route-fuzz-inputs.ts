/**
 * What a careless client or an attacker sends, by malformation class: path parameters,
 * query parameters, body values and whole bodies. Texts are sent as they are (already
 * URL-encoded where they go into a URL).
 */

/** One megabyte of text: under the API's 1 MiB body limit, far over any field limit. */
export const ONE_MB = 'x'.repeat(1_000_000);

/** Values for a path parameter (the others keep naming real records). */
export const PATH_VALUES: ReadonlyArray<{ kind: string; text: string }> = [
  { kind: '2^63', text: '9223372036854775808' },
  { kind: '2^53+1', text: '9007199254740993' },
  { kind: '2^31 (past a 32-bit column)', text: '2147483648' },
  { kind: 'overflowing float', text: '1e309' },
  { kind: 'negative', text: '-1' },
  { kind: 'zero', text: '0' },
  { kind: 'fraction', text: '1.5' },
  { kind: 'hexadecimal', text: '0x10' },
  { kind: 'empty', text: '' },
  { kind: 'long', text: 'a'.repeat(2000) },
  { kind: 'longer than the router allows', text: 'a'.repeat(5000) },
  { kind: 'encoded traversal', text: '..%2F..%2F..%2Fetc%2Fpasswd' },
  // A bare `..` segment is resolved by the URL parser of fastify.inject (not by a real server).
  { kind: 'dot-dot-slash', text: '%2E%2E%2F' },
  { kind: 'NUL', text: '%00' },
  { kind: 'embedded NUL', text: 'a%00b' },
  { kind: 'unicode', text: encodeURIComponent('ünï©ødé\u202E😀') },
  { kind: 'lone surrogate (broken UTF-8)', text: '%ED%A0%80' },
  { kind: 'broken percent-encoding', text: '%E0%A4%A' },
  { kind: 'SQL metacharacters', text: encodeURIComponent("1' OR '1'='1'; --") },
  { kind: 'LIKE and regex metacharacters', text: encodeURIComponent('%_*.[(?\\') },
  { kind: 'git revision syntax', text: encodeURIComponent('main:./README.md^{tree}@{1}~1..HEAD') },
  { kind: 'option-like', text: encodeURIComponent('--output=/tmp/x') },
];

/** Query fragments giving parameter `name` a malformed value. */
/** Values marked adminOnly cost much to send (1 MB) and are sent by the administrator only. */
export const QUERY_VALUES: ReadonlyArray<{ kind: string; query(name: string): string; adminOnly?: boolean }> = [
  { kind: 'array for a scalar', query: (name) => `${name}[]=1&${name}[]=2` },
  { kind: 'hash for a scalar', query: (name) => `${name}[a]=1&${name}[b][c]=2` },
  { kind: '2^63', query: (name) => `${name}=9223372036854775808` },
  { kind: '2^31', query: (name) => `${name}=2147483648` },
  { kind: 'overflowing float', query: (name) => `${name}=1e309` },
  { kind: 'negative', query: (name) => `${name}=-1` },
  { kind: 'empty', query: (name) => `${name}=` },
  { kind: '1 MB', query: (name) => `${name}=${ONE_MB}`, adminOnly: true },
  { kind: 'garbage boolean', query: (name) => `${name}=maybe` },
  { kind: 'NUL', query: (name) => `${name}=a%00b` },
  { kind: 'unicode', query: (name) => `${name}=${encodeURIComponent('ünï©ødé\u202E😀')}` },
  { kind: 'broken UTF-8', query: (name) => `${name}=%ED%A0%80%FF` },
  { kind: 'metacharacters', query: (name) => `${name}=${encodeURIComponent("%_'\";--*.[(?\\:^{}..")}` },
  { kind: 'option-like', query: (name) => `${name}=${encodeURIComponent('--upload-pack=touch /tmp/gantry-fuzz')}` },
  { kind: 'repeated, scalar then array', query: (name) => `${name}=1&${name}[]=2` },
];

/** JSON texts for the value of one body parameter. */
export const JSON_VALUES: ReadonlyArray<{ kind: string; json: string; adminOnly?: boolean }> = [
  { kind: 'array', json: '[1,"a",null]' },
  { kind: 'object', json: '{"a":{"b":[null]}}' },
  { kind: '2^63', json: '9223372036854775808' },
  { kind: '2^31', json: '2147483648' },
  { kind: 'overflowing float', json: '1e309' },
  { kind: 'negative', json: '-1' },
  { kind: 'fraction', json: '1.5' },
  { kind: 'boolean', json: 'true' },
  { kind: 'null', json: 'null' },
  { kind: 'empty string', json: '""' },
  { kind: '1 MB string', json: JSON.stringify(ONE_MB), adminOnly: true },
  { kind: 'NUL', json: '"a\\u0000b"' },
  { kind: 'lone surrogate', json: '"\\ud800"' },
  { kind: 'metacharacters', json: JSON.stringify("%_'\";--*.[(?\\:^{}..") },
  { kind: 'option-like', json: JSON.stringify('--upload-pack=touch /tmp/gantry-fuzz') },
  // Garbage one level down, under the names nested parameters use (commit actions, release asset links).
  { kind: 'objects with garbage fields', json: '[{"action":{"a":1},"file_path":[1],"content":[],"name":[],"url":{"a":null},"filepath":-1,"link_type":true},7,null]' },
  { kind: 'objects with a garbage field after good ones', json: '[{"action":"create","file_path":"fuzz.txt","content":{"a":1},"encoding":"base64"}]' },
  { kind: 'objects naming a path outside', json: '[{"action":"move","file_path":"moved.txt","previous_path":"../../../etc/passwd","last_commit_id":[1]}]' },
  { kind: 'nested lists of garbage objects', json: '{"links":[{"name":[1],"url":{"x":1},"filepath":null,"link_type":9},7,null],"a":{"b":{"c":[]}}}' },
  { kind: 'nested links with hostile values', json: '{"links":[{"name":"x","url":"javascript:alert(1)","filepath":"/../../x","link_type":"other"}]}' },
];

export interface BodyShape {
  kind: string;
  contentType: string;
  payload: string;
}

/** Bodies that are wrong as a whole, whatever the route; each with its Content-Type. */
export const MALFORMED_BODIES: readonly BodyShape[] = [
  { kind: 'multipart without a boundary', contentType: 'multipart/form-data', payload: 'name=x' },
  { kind: 'multipart with an empty boundary', contentType: 'multipart/form-data; boundary=', payload: 'name=x' },
  { kind: 'multipart not matching its boundary', contentType: 'multipart/form-data; boundary=abc', payload: '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--\r\n' },
  { kind: 'multipart with broken part headers', contentType: 'multipart/form-data; boundary=abc', payload: '--abc\r\nno header here\r\n\r\n1\r\n--abc--\r\n' },
  { kind: 'multipart cut short', contentType: 'multipart/form-data; boundary=abc', payload: '--abc\r\nContent-Disposition: form-data; name="a"\r\n\r\n1' },
  { kind: 'malformed JSON', contentType: 'application/json', payload: '{"name":' },
  { kind: 'JSON array', contentType: 'application/json', payload: '[1,2]' },
  { kind: 'JSON scalar', contentType: 'application/json', payload: '"x"' },
  { kind: 'JSON number', contentType: 'application/json', payload: '9223372036854775808' },
  { kind: 'JSON null', contentType: 'application/json', payload: 'null' },
  { kind: 'JSON prototype pollution', contentType: 'application/json', payload: '{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}' },
  { kind: 'JSON nested 100,000 deep', contentType: 'application/json', payload: `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
  { kind: 'JSON in another charset', contentType: 'application/json; charset=utf-16', payload: '{"a":1}' },
  { kind: 'JSON sent as text/plain', contentType: 'text/plain', payload: '{"name":"x"}' },
  { kind: 'broken percent-encoding', contentType: 'application/x-www-form-urlencoded', payload: 'name=%E0%A4%A&x=%&%%%=1' },
  { kind: 'invalid UTF-8 in a form', contentType: 'application/x-www-form-urlencoded', payload: 'name=%FF%FE' },
  { kind: 'form keys without names', contentType: 'application/x-www-form-urlencoded', payload: '[]=1&=2&[a]=3&%5B%5D%5B%5D=4&a[][b]=5' },
  { kind: 'unknown content type', contentType: 'application/xml', payload: '<a/>' },
  { kind: 'invalid content type', contentType: 'not a type;;;', payload: 'x' },
];

/** Bodies that put garbage in parameter `name` through a form or multipart encoding. */
export const NAMED_BODIES: ReadonlyArray<{ kind: string; body(name: string): BodyShape }> = [
  {
    kind: 'form with repeated keys of mixed kinds',
    body: (name) => ({ kind: '', contentType: 'application/x-www-form-urlencoded', payload: `${name}=1&${name}=2&${name}[]=3&${name}[a]=4` }),
  },
  {
    kind: 'multipart with a file where a field belongs',
    body: (name) => ({
      kind: '',
      contentType: 'multipart/form-data; boundary=fuzz',
      payload: `--fuzz\r\nContent-Disposition: form-data; name="${name}"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n\u0000\u0001garbage\r\n--fuzz--\r\n`,
    }),
  },
  {
    kind: 'multipart field repeated as array and hash',
    body: (name) => ({
      kind: '',
      contentType: 'multipart/form-data; boundary=fuzz',
      payload: ['[]', '[a]', ''].map((suffix) => `--fuzz\r\nContent-Disposition: form-data; name="${name}${suffix}"\r\n\r\n1\r\n`).join('') + '--fuzz--\r\n',
    }),
  },
];
