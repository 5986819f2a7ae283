/**
 * Ruby `File.fnmatch` with FNM_PATHNAME | FNM_EXTGLOB | FNM_DOTMATCH, as GitLab uses for
 * `changes` and `exists`: `*` and `?` stop at `/`, `**\/` spans directories, `{a,b}` alternates.
 */
const cache = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  const cached = cache.get(glob);
  if (cached) return cached;
  let source = '';
  let braceDepth = 0;
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] ?? '';
    if (char === '*') {
      if (glob[index + 1] === '*' && glob[index + 2] === '/' && (index === 0 || glob[index - 1] === '/')) {
        source += '(?:[^/]*/)*';
        index += 2;
      } else {
        while (glob[index + 1] === '*') index++;
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      const end = glob.indexOf(']', index + 2);
      if (end === -1) {
        source += '\\[';
      } else {
        const body = glob.slice(index + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        source += `[${body}]`;
        index = end;
      }
    } else if (char === '{') {
      braceDepth++;
      source += '(?:';
    } else if (char === '}' && braceDepth > 0) {
      braceDepth--;
      source += ')';
    } else if (char === ',' && braceDepth > 0) {
      source += '|';
    } else if (char === '\\' && index + 1 < glob.length) {
      source += escapeRegExp(glob[index + 1] ?? '');
      index++;
    } else {
      source += escapeRegExp(char);
    }
  }
  let regexp: RegExp;
  try {
    regexp = new RegExp(`^${source}${')'.repeat(braceDepth)}$`);
  } catch {
    regexp = new RegExp(`^${escapeRegExp(glob)}$`);
  }
  cache.set(glob, regexp);
  return regexp;
}

export function globMatches(glob: string, path: string): boolean {
  return globToRegExp(glob.replace(/^\.?\//, '')).test(path.replace(/^\.?\//, ''));
}

export function anyGlobMatches(globs: readonly string[], paths: readonly string[]): boolean {
  return globs.some((glob) => paths.some((path) => globMatches(glob, path)));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
