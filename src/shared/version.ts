import { readFileSync } from 'node:fs';

/** Gantry's own version, from package.json (two levels up from both src/shared and dist/shared). */
export const GANTRY_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The GitLab release whose API and runner protocol Gantry answers like. */
export const GITLAB_COMPATIBLE_VERSION = '13.12.0';
