import MarkdownIt from 'markdown-it';
import { posix } from 'node:path';
import { trusted, type Markup } from './html.ts';

/**
 * Markdown as GitLab-flavoured enough for READMEs: `html: false` escapes any raw HTML in the
 * text, and markdown-it's link validation refuses `javascript:`, `vbscript:`, `file:` and
 * non-image `data:` URLs, so the output is safe to place in a page as it is.
 */
const renderer = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** Where a repository file's relative links lead: its project's base URL, the ref and the file's directory. */
export interface RepositoryLinks {
  project: string;
  ref: string;
  directory: string;
}

/** A link with a scheme, `//host`, a site path, or only a fragment or query: left as written. */
/** Links that stay as written: with a scheme, protocol-relative (`//host`), an anchor or a query alone. */
const NOT_RELATIVE = /^(?:[a-z][a-z0-9+.-]*:|\/\/|#|\?)/i;

/**
 * A relative link of a repository file resolved in the repository at its ref, as GitLab's
 * RelativeLinkFilter does: a path starting with `/` from the repository's root, others from the
 * file's directory; images to the raw file, a path ending in `/` to the tree, others to the
 * blob. Null when the link is not relative or climbs out of the repository.
 */
export function repositoryHref(href: string, links: RepositoryLinks, kind: 'link' | 'image'): string | null {
  if (href === '' || NOT_RELATIVE.test(href)) return null;
  const cut = href.search(/[?#]/);
  const rawPath = cut < 0 ? href : href.slice(0, cut);
  const suffix = cut < 0 ? '' : href.slice(cut);
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  const fromRoot = decoded.startsWith('/');
  const joined = posix.normalize(posix.join(fromRoot ? '' : links.directory, fromRoot ? decoded.slice(1) : decoded));
  if (joined === '..' || joined.startsWith('../')) return null;
  const path = joined === '.' ? '' : joined.replace(/\/$/, '');
  const route = kind === 'image' ? 'raw' : decoded.endsWith('/') || path === '' ? 'tree' : 'blob';
  const encoded = [links.ref, ...(path === '' ? [] : path.split('/'))].map((segment) => segment.split('/').map(encodeURIComponent).join('/')).join('/');
  return `${links.project}/-/${route}/${encoded}${suffix}`;
}

function rewrite(env: unknown, token: { attrGet(name: string): string | number | null; attrSet(name: string, value: string): void }, attribute: 'href' | 'src', kind: 'link' | 'image'): void {
  const links = (env as { repository?: RepositoryLinks } | null)?.repository;
  const value = links ? token.attrGet(attribute) : null;
  if (!links || typeof value !== 'string') return;
  const resolved = repositoryHref(value, links, kind);
  if (resolved !== null) token.attrSet(attribute, resolved);
}

const defaultLinkOpen = renderer.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
renderer.renderer.rules.link_open = (tokens, index, options, env, self) => {
  rewrite(env, tokens[index]!, 'href', 'link');
  return defaultLinkOpen(tokens, index, options, env, self);
};
const defaultImage = renderer.renderer.rules.image!;
renderer.renderer.rules.image = (tokens, index, options, env, self) => {
  rewrite(env, tokens[index]!, 'src', 'image');
  return defaultImage(tokens, index, options, env, self);
};

/** Renders `source`; with `repository`, its relative links lead into the repository (a README's, say). */
export function renderMarkdown(source: string, repository?: RepositoryLinks): Markup {
  return trusted(renderer.render(source, repository ? { repository } : {}));
}
