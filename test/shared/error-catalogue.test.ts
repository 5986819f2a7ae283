import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_ANSWERS } from '../../src/coordinator/http/error-responses.ts';
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../../src/shared/errors.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');
const CATALOGUE = 'shared/errors.ts';
const ANSWERS = 'coordinator/http/error-responses.ts';

function sources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (entry.endsWith('.ts')) files.set(entry.split(path.sep).join('/'), readFileSync(path.join(SRC, entry), 'utf8'));
  }
  return files;
}

/** The top-level function or class bodies of `text`, by name (a declaration runs to the next one). */
function declarations(text: string, pattern: RegExp): Array<{ name: string; body: string }> {
  const starts = [...text.matchAll(pattern)];
  return starts.map((match, index) => ({
    name: match[1]!,
    body: text.slice(match.index, starts[index + 1]?.index ?? text.length),
  }));
}

const CODE = /'(GANTRY_E_[A-Z_]+)'/g;
/** A code as the first argument of a construction or call: `new GantryError('GANTRY_E_X'`, `super('GANTRY_E_X'`. */
const RAISED = /(?:\bnew \w+|\bsuper)\(\s*'(GANTRY_E_[A-Z_]+)'/g;

/**
 * Where each code is raised in src/, the catalogue and the answer table left out: built
 * directly (`new GantryError('GANTRY_E_X', ...)`), through a GantryError subclass that is
 * instantiated somewhere, or through a factory of the catalogue module that is called
 * somewhere. A factory or subclass nobody uses raises nothing.
 */
function raiseSites(files: Map<string, string>): Map<ErrorCode, string[]> {
  const sites = new Map<ErrorCode, string[]>();
  const note = (code: string, where: string): void => {
    if (!(code in ERROR_CATALOGUE)) assert.fail(`${where} raises ${code}, which the catalogue does not list`);
    sites.set(code as ErrorCode, [...(sites.get(code as ErrorCode) ?? []), where]);
  };
  const others = [...files].filter(([file]) => file !== CATALOGUE && file !== ANSWERS);
  const callerOf = (call: RegExp): string | undefined => others.find(([, text]) => call.test(text))?.[0];

  for (const [file, text] of others) {
    for (const match of text.matchAll(RAISED)) note(match[1]!, file);
    for (const subclass of declarations(text, /^export class (\w+) extends GantryError/gm)) {
      const user = callerOf(new RegExp(`\\bnew ${subclass.name}\\(`));
      for (const match of subclass.body.matchAll(CODE)) if (user) note(match[1]!, `${user} (${subclass.name})`);
    }
  }
  // Factories of the catalogue module, used from outside it or by a factory that is.
  const factories = declarations(files.get(CATALOGUE)!, /^export function (\w+)/gm);
  const users = new Map<string, string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const factory of factories) {
      if (users.has(factory.name)) continue;
      const call = new RegExp(`\\b${factory.name}\\(`);
      const user = callerOf(call) ?? factories.find((other) => users.has(other.name) && call.test(other.body))?.name;
      if (user === undefined) continue;
      users.set(factory.name, users.get(user) ?? user);
      grew = true;
    }
  }
  for (const factory of factories) {
    const user = users.get(factory.name);
    for (const match of factory.body.matchAll(CODE)) if (user) note(match[1]!, `${user} (${factory.name})`);
  }
  return sites;
}

describe('error catalogue', () => {
  const files = sources();

  it('describes every code in one line', () => {
    assert.ok(ERROR_CODES.length >= 40, `only ${ERROR_CODES.length} codes`);
    for (const code of ERROR_CODES) {
      assert.match(code, /^GANTRY_E_[A-Z]+(?:_[A-Z]+)*$/);
      const description = ERROR_CATALOGUE[code];
      assert.ok(description.length > 10 && !description.includes('\n'), `${code}: ${description}`);
    }
  });

  it('has every code raised somewhere in src/', () => {
    const sites = raiseSites(files);
    const unraised = ERROR_CODES.filter((code) => !sites.has(code));
    assert.deepEqual(unraised, [], 'codes nothing raises: remove them or raise them');
  });

  it('maps every code to exactly one HTTP status, and nothing else', () => {
    assert.deepEqual(Object.keys(ERROR_ANSWERS).sort(), [...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      const { status } = ERROR_ANSWERS[code];
      assert.ok(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: ${status}`);
    }
  });

  it('keeps HTTP out of the domain: no status or GitLab body outside the HTTP edge', () => {
    const gitlabBody = /\b[45]\d\d (?:Bad request|Unauthorized|Forbidden|Not Found|Not found|Method Not Allowed|Conflict|Unprocessable Entity|Too Many Requests|Internal Server Error)\b/;
    // The edges themselves (the API and the web pages), the runner and CLIs (HTTP clients), and the relay of git http-backend's own CGI status.
    const outsideDomain = /^(?:coordinator\/http\/|coordinator\/api\/|coordinator\/web\/|runner\/|cli\/|storage\/git\/http-backend\.ts$)/;
    const offenders = [...files]
      .filter(([file]) => !outsideDomain.test(file))
      .filter(([, text]) => gitlabBody.test(text) || /\bstatus:\s*[45]\d\d\b/.test(text))
      .map(([file]) => file);
    assert.deepEqual(offenders, []);
  });
});
