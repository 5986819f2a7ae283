/**
 * Regular expressions from CI files, evaluated as GitLab does (`Gitlab::UntrustedRegexp` and
 * its `RubySyntax`): RE2 syntax, so matching is linear in the input whatever the pattern,
 * and constructs that need backtracking (backreferences, look-around, possessive
 * quantifiers) are syntax errors. `/source/flags` takes the flags `i`, `s`, `m` and `U`,
 * put in front of the pattern as RE2's `(?flags)`: without `m`, `^` and `$` anchor the whole
 * text; `\A` and `\z` always do.
 */
import { RE2JS } from 're2js';

export class RegexpSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegexpSyntaxError';
  }
}

export class UntrustedRegexp {
  private constructor(
    readonly source: string,
    readonly flags: string,
    private readonly compiled: RE2JS,
  ) {}

  /** Throws RegexpSyntaxError when RE2 refuses the pattern. */
  static compile(source: string, flags: string): UntrustedRegexp {
    const key = `${flags}/${source}`;
    const cached = compiledCache.get(key);
    if (cached) return cached;
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(flags === '' ? source : `(?${flags})${source}`);
    } catch (error) {
      throw new RegexpSyntaxError(error instanceof Error ? error.message : String(error));
    }
    const regexp = new UntrustedRegexp(source, flags, compiled);
    remember(key, regexp);
    return regexp;
  }

  /** Whether the pattern matches anywhere in the text. */
  test(text: string): boolean {
    return this.compiled.test(text);
  }

  equals(other: UntrustedRegexp): boolean {
    return this.source === other.source && this.flags === other.flags;
  }
}

const RUBY_SYNTAX = /^\/(.*)\/([ismU]*)$/s;

/** `/source/flags` as a regexp; null when the text is not in that form or RE2 refuses it. */
export function fabricateRegexp(text: string): UntrustedRegexp | null {
  const match = RUBY_SYNTAX.exec(text);
  if (!match) return null;
  try {
    return UntrustedRegexp.compile(match[1] ?? '', match[2] ?? '');
  } catch (error) {
    if (error instanceof RegexpSyntaxError) return null;
    throw error;
  }
}

/** Whether `/source/flags` is a regexp RE2 accepts (the validators of `only:refs`, `coverage`). */
export function isValidRegexp(text: string): boolean {
  return fabricateRegexp(text) !== null;
}

// Rules are evaluated per job: the same few patterns compile once. Bounded, so a long-lived
// coordinator does not keep every pattern it ever saw.
const CACHE_SIZE = 512;
const compiledCache = new Map<string, UntrustedRegexp>();

function remember(key: string, regexp: UntrustedRegexp): void {
  if (compiledCache.size >= CACHE_SIZE) {
    const oldest = compiledCache.keys().next().value;
    if (oldest !== undefined) compiledCache.delete(oldest);
  }
  compiledCache.set(key, regexp);
}
