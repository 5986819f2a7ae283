/** RE2/Ruby regex syntax to JavaScript: `\A` and `\z` anchors; the `U` flag has no equivalent. */
export function buildRegExp(source: string, flags: string): RegExp {
  const translated = source.replace(/\\A/g, '(?<![\\s\\S])').replace(/\\[zZ]/g, '(?![\\s\\S])');
  const jsFlags = [...new Set(flags.replace(/U/g, '').split(''))].join('');
  return new RegExp(translated, jsFlags);
}
