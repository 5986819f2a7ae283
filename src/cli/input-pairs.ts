/** `--input NAME=VALUE` flags (`runner exec`, `runner lint`): the CI file's `spec:inputs` as text. */

/** The inputs by name, a later one over an earlier one of the same name; names and types are the compiler's to check. */
export function parseInputPairs(pairs: readonly string[]): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--input expects NAME=VALUE, got "${pair}"`);
    // Defined, not assigned: an input named __proto__ is an input like another.
    Object.defineProperty(inputs, pair.slice(0, at), { value: pair.slice(at + 1), enumerable: true, writable: true, configurable: true });
  }
  return inputs;
}
