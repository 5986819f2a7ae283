import type { FastifyReply, FastifyRequest } from 'fastify';
import { GantryError, isGantryError } from '../../shared/errors.ts';
import type { GitTreeEntry } from '../../storage/git/types.ts';
import type { BrowsingService } from '../services/repository/browsing.ts';
import type { FilesService, RawBlob } from '../services/repository/files.ts';
import { looksBinary, readPrefix } from './blob-reading.ts';
import { pageRequest, sendPage, sendRefusal, type PageRequest, type WebEdge } from './frame.ts';
import { html, type Markup } from './html.ts';
import { layout } from './layout.ts';
import { pathHref, projectHref } from './pipeline-format.ts';

export interface TreePagesServices {
  browsing: Pick<BrowsingService, 'tree'>;
  files: Pick<FilesService, 'raw'>;
}

/** The bytes a blob page shows; past it the page says so and links the raw file. */
export const BLOB_PAGE_BUDGET = 512 * 1024;
/** Entries a directory page lists (GitLab pages its tree too); past it the page says how many it cut. */
const TREE_ENTRIES = 1000;
/** Ref candidates tried per path: a ref has at most this many slash-separated parts here. */
const MAX_REF_SEGMENTS = 16;

/**
 * Tries `attempt` with the longest leading part of `refAndPath` as the ref, then shorter ones,
 * as GitLab resolves `feature/x/src/a.ts` to the ref `feature/x` when that branch exists.
 * `attempt` answers null when the ref does not exist; the first other answer wins.
 */
export async function withLongestRef<T>(refAndPath: string, attempt: (ref: string, path: string) => Promise<T | null>): Promise<T> {
  const segments = refAndPath.split('/');
  for (let count = Math.min(segments.length, MAX_REF_SEGMENTS); count >= 1; count -= 1) {
    const ref = segments.slice(0, count).join('/');
    if (ref === '') continue;
    const found = await attempt(ref, segments.slice(count).join('/'));
    if (found !== null) return found;
  }
  throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
}

const unknownRef = (error: unknown) => isGantryError(error) && (error.code === 'GANTRY_E_COMMIT_NOT_FOUND' || error.code === 'GANTRY_E_TREE_NOT_FOUND');

/** `/-/tree/:ref/*path`, `/-/blob/:ref/*path` and `/-/raw/:ref/*path` (refs with slashes resolve to the longest existing one). */
export class TreePages {
  constructor(
    private readonly edge: WebEdge,
    private readonly services: TreePagesServices,
  ) {}

  async tree(projectPath: string, refAndPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { ref, path, items, total } = await withLongestRef(refAndPath, async (ref, path) => {
        try {
          return { ref, path, ...(await this.services.browsing.tree(projectPath, page.actor, { ref, path, recursive: false }, { offset: 0, limit: TREE_ENTRIES })) };
        } catch (error) {
          if (unknownRef(error)) return null;
          throw error;
        }
      });
      if (path !== '' && total === 0) throw new GantryError('GANTRY_E_TREE_NOT_FOUND');
      const base = projectHref(page.frame.prefix, projectPath);
      const body = html`${breadcrumbs(page, projectPath, ref, path)}
${treeTable(base, ref, items)}
${total > TREE_ENTRIES && html`<p class="muted">The first ${TREE_ENTRIES} of ${total} entries are shown.</p>`}`;
      return sendPage(reply, 200, layout(page.frame, `${path || ref} · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  async blob(projectPath: string, refAndPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { ref, path, raw } = await this.locate(projectPath, refAndPath, page);
      const bytes = await readPrefix(raw.stream, BLOB_PAGE_BUDGET);
      const rawHref = `${projectHref(page.frame.prefix, projectPath)}/-/raw/${pathHref(ref)}/${pathHref(path)}`;
      const shown = looksBinary(bytes)
        ? html`<p>This file is binary (${raw.blob.size} bytes). <a href="${rawHref}" download>Download it</a>.</p>`
        : html`${raw.blob.size > bytes.length && html`<p class="notice">This file is ${raw.blob.size} bytes: the first ${bytes.length} are shown. <a href="${rawHref}">Open the raw file</a>.</p>`}
${numberedLines(bytes.toString('utf8'))}`;
      const body = html`${breadcrumbs(page, projectPath, ref, path)}
<p class="muted">${raw.blob.size} bytes · <a href="${rawHref}">Raw</a></p>
${shown}`;
      return sendPage(reply, 200, layout(page.frame, `${path} · ${projectPath}`, body));
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  /** The file's bytes, streamed from git: never in a page, so no script in it runs here (CSP sandbox, nosniff); images as images, so a README can show them. */
  async raw(projectPath: string, refAndPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const page = await pageRequest(this.edge, request);
    try {
      const { path, raw } = await this.locate(projectPath, refAndPath, page);
      const name = path.split('/').pop() ?? 'file';
      return reply.code(200).headers({
        'content-type': rawContentType(name),
        'content-length': String(raw.blob.size),
        'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(name)}`,
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'no-store',
      }).send(raw.stream);
    } catch (error) {
      return sendRefusal(reply, page, error, request.url);
    }
  }

  private locate(projectPath: string, refAndPath: string, page: PageRequest): Promise<{ ref: string; path: string; raw: RawBlob }> {
    return withLongestRef(refAndPath, async (ref, path) => {
      if (path === '') return null;
      try {
        return { ref, path, raw: await this.services.files.raw(projectPath, page.actor, path, ref) };
      } catch (error) {
        if (unknownRef(error)) return null;
        throw error;
      }
    });
  }
}

/** The project, the ref and each directory of the path, linked. */
function breadcrumbs(page: PageRequest, projectPath: string, ref: string, path: string): Markup {
  const base = projectHref(page.frame.prefix, projectPath);
  const parts = path === '' ? [] : path.split('/');
  const links = parts.map((part, index) => {
    const upTo = parts.slice(0, index + 1).join('/');
    return index === parts.length - 1 ? html` / <strong>${part}</strong>` : html` / <a href="${base}/-/tree/${pathHref(ref)}/${pathHref(upTo)}">${part}</a>`;
  });
  return html`<p><a href="${base}">${projectPath}</a> › <a href="${base}/-/tree/${pathHref(ref)}">${ref}</a>${links}</p>`;
}

export function treeTable(base: string, ref: string, entries: readonly GitTreeEntry[]): Markup {
  const rows = entries.map((entry) => {
    const href = `${base}/-/${entry.type === 'tree' ? 'tree' : 'blob'}/${pathHref(ref)}/${pathHref(entry.path)}`;
    const kind = entry.type === 'tree' ? 'directory' : entry.type === 'commit' ? 'submodule' : 'file';
    return html`<tr><td>${entry.type === 'commit' ? html`${entry.name} @ ${entry.id.slice(0, 8)}` : html`<a href="${href}">${entry.name}${entry.type === 'tree' ? '/' : ''}</a>`}</td><td class="muted">${kind}</td></tr>`;
  });
  return entries.length === 0 ? html`<p>This directory is empty.</p>` : html`<table class="tree"><thead><tr><th scope="col">Name</th><th scope="col">Kind</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Plain text with a linkable number per line (`#L12`). */
function numberedLines(text: string): Markup {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const rows = lines.map((line, index) => html`<span class="line" id="L${index + 1}"><a class="ln" href="#L${index + 1}">${index + 1}</a>${line}\n</span>`);
  return html`<pre class="code">${rows}</pre>`;
}

/** Raster images keep their type (a README's `![](logo.png)` draws); everything else, SVG included, is plain text. */
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif', bmp: 'image/bmp', ico: 'image/x-icon',
};

export function rawContentType(name: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (extension !== undefined && Object.hasOwn(IMAGE_TYPES, extension) ? IMAGE_TYPES[extension] : undefined) ?? 'text/plain; charset=utf-8';
}
