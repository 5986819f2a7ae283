import MarkdownIt from 'markdown-it';
import { trusted, type Markup } from './html.ts';

/**
 * Markdown as GitLab-flavoured enough for READMEs: `html: false` escapes any raw HTML in the
 * text, and markdown-it's link validation refuses `javascript:`, `vbscript:`, `file:` and
 * non-image `data:` URLs, so the output is safe to place in a page as it is.
 */
const renderer = new MarkdownIt({ html: false, linkify: true, typographer: false });

export function renderMarkdown(source: string): Markup {
  return trusted(renderer.render(source));
}
