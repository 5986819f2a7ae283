/**
 * Masking of credentials in text that is about to be logged: query parameters that carry a
 * credential (judged by their decoded name, as the server reads them: `private%5Ftoken`
 * authenticates like `private_token`), passwords in URL userinfo (`http://user:token@host`)
 * and credential headers quoted in messages.
 */
export const MASK = '[MASKED]';

/** Parameter names (decoded, lower-cased) that carry a credential: any token, password, secret or API key (integrations' `api_key`). */
const SECRET_NAME = /token|password|passwd|secret|credential|api_?key/;

/** Headers whose values are credentials, however they are spelt in a message. */
const SECRET_HEADER = /\b(authorization|private-token|job-token|cookie|proxy-authorization)(["']?\s*[:=]\s*["']?)(?:(?:basic|bearer|token)\s+)?[^\s"',;]+/gi;

/** `scheme://user:password@` */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@"'<>]*:)[^\s/@"'<>]*@/gi;

/** A query string inside free text: from `?` to the first character that cannot be part of a URL. */
const QUERY_IN_TEXT = /\?[^\s"'<>]*/g;

/** The decoded name of one `name=value` piece, decoded exactly as the query parser does. */
function decodedName(piece: string): string {
  const equals = piece.indexOf('=');
  const rawName = equals < 0 ? piece : piece.slice(0, equals);
  for (const [name] of new URLSearchParams(`${rawName}=`)) return name.toLowerCase();
  return rawName.toLowerCase();
}

/** Masks the values of credential parameters in a query string (without its `?`). */
export function maskQuery(query: string): string {
  return query
    .split('&')
    .map((piece) => {
      const equals = piece.indexOf('=');
      if (equals < 0 || !SECRET_NAME.test(decodedName(piece))) return piece;
      return `${piece.slice(0, equals + 1)}${MASK}`;
    })
    .join('&');
}

/** A URL or request target (`/path?query`) with its credentials masked. */
export function maskUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const head = (queryAt < 0 ? url : url.slice(0, queryAt)).replace(URL_USERINFO, `$1${MASK}@`);
  return queryAt < 0 ? head : `${head}?${maskQuery(url.slice(queryAt + 1))}`;
}

/** Masks every credential this module recognises anywhere in free text (messages, stack traces, git output). */
export function maskSecretsInText(text: string): string {
  if (text === '') return text;
  return text
    .replace(URL_USERINFO, `$1${MASK}@`)
    .replace(SECRET_HEADER, `$1$2${MASK}`)
    .replace(QUERY_IN_TEXT, (query) => `?${maskQuery(query.slice(1))}`);
}
