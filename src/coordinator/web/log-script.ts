import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The job page's client script (scripts/bundle-web-client.mjs writes it beside this module, in src/ and dist/). */
const BUNDLE = new URL('./client/job-log.bundle.js', import.meta.url);

export interface LogScript {
  /** `/-/gantry/job-log.<first 16 hex of its SHA-256>.js`: a new build is a new URL, so browsers may keep it a year. */
  path: string;
  body: Buffer;
}

/** Read once when the pages are mounted (about 25 KB); null when the bundle was not built. */
export function loadLogScript(): LogScript | null {
  let body: Buffer;
  try {
    body = readFileSync(BUNDLE);
  } catch {
    return null;
  }
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { path: `/-/gantry/job-log.${hash}.js`, body };
}

export const LOG_SCRIPT_HEADERS = {
  'content-type': 'text/javascript; charset=utf-8',
  'cache-control': 'public, max-age=31536000, immutable',
  'x-content-type-options': 'nosniff',
} as const;
