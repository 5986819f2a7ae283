/**
 * A received file's name made safe to keep and to put in a URL, as CarrierWave's sanitising
 * does: path and characters other than letters, digits, `.`, `_` and `-` become `_`; a name
 * left empty or starting with a dot becomes `fallback`.
 */
export function safeFileName(original: string, fallback: string): string {
  const base = original.slice(Math.max(original.lastIndexOf('/'), original.lastIndexOf('\\')) + 1);
  const cleaned = base.replace(/[^A-Za-z0-9._-]/g, '_').slice(-200);
  if (cleaned === '' || /^[._-]/.test(cleaned) || /^_*$/.test(cleaned.replace(/\.[^.]*$/, ''))) return fallback;
  return cleaned;
}

/** The name with its extension replaced by `extension` unless it already ends with one of `accepted`. */
export function withExtension(name: string, extension: string, accepted: readonly string[]): string {
  const dot = name.lastIndexOf('.');
  const current = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  if (accepted.includes(current)) return name;
  return `${dot > 0 ? name.slice(0, dot) : name}.${extension}`;
}
