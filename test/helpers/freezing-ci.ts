/**
 * Issue 22's CI files that froze the whole coordinator, and harmless files of the same shape:
 * shared by test/coordinator/ci-freeze.test.ts and bench/ci-abuse.ts.
 */

/** A CI file whose job `frozen` has one rule, `clause` (`if: …` or `exists: […]`), beside a job that always runs. */
export const ciFileWithRule = (clause: string): string => `frozen:\n  script: echo frozen\n  rules:\n    - ${clause}\nalways:\n  script: echo always\n`;

/** Rules that backtrack exponentially: the regular expression on `freezingValue()` (variable `S`), the glob on a file named `longFileName()`. */
export const FREEZING_RULES = { regex: `if: '$S =~ /^(a+)+$/'`, glob: `exists: ['*a*a*a*a*a*a*a*a*b']` };

/** Rules of the same shape that cost nothing. */
export const HARMLESS_RULES = { regex: `if: '$S =~ /^a+$/'`, glob: `exists: ['*.md']` };

/** A cheap rule to warm up with (the first requests of a process, the compile workers). */
export const WARM_UP_RULE = `if: '$S =~ /xy/'`;

/** The value of `S` that the regular expression backtracks on: `a` repeated, then `!`. */
export const freezingValue = (as = 40): string => `${'a'.repeat(as)}!`;

/** The name of the file the glob backtracks on. */
export const longFileName = (length = 250): string => 'a'.repeat(length);
