/**
 * Job variables read as gitlab-runner reads them, with Go's parsers: what Go refuses is
 * `undefined` here, and the caller's default applies.
 */

/** Go's strconv.ParseBool. */
export function goBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** Go's strconv.Atoi: decimal digits, a sign allowed, white space not. */
export function goInt(value: string | undefined): number | undefined {
  return value !== undefined && /^[-+]?\d+$/.test(value) ? Number(value) : undefined;
}
