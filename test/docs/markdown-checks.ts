/**
 * What test/docs/links.test.ts checks in README.md and docs/*.md: relative links and their
 * anchors (GitHub's heading slugs), and the flags shown for `coordinator …` and `runner …`
 * commands. Pure functions over markdown text; the test supplies files and `--help` output.
 */
import path from 'node:path';

export interface MarkdownLink {
  /** The link as written: `docs/api.md#errors`, `#rate-limits`. */
  target: string;
  line: number;
}

export interface ShownCommand {
  bin: 'coordinator' | 'runner';
  /** The subcommand (`serve`, `lint`), or null for the top level (`runner --version`). */
  subcommand: string | null;
  flags: string[];
  line: number;
  text: string;
}

const FENCE = /^\s*(```|~~~)/;

/** The file's lines with fenced code blocks blanked (so links and headings in code are ignored), and the blocks apart. */
function splitFences(markdown: string): { prose: string[]; code: Array<{ line: number; text: string }> } {
  const prose: string[] = [];
  const code: Array<{ line: number; text: string }> = [];
  let inFence = false;
  markdown.split('\n').forEach((text, index) => {
    if (FENCE.test(text)) {
      inFence = !inFence;
      prose.push('');
      return;
    }
    if (inFence) code.push({ line: index + 1, text });
    prose.push(inFence ? '' : text);
  });
  return { prose, code };
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces become hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*+/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor the file's headings make, duplicates numbered as GitHub numbers them (`x`, `x-1`, …). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of splitFences(markdown).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = githubSlug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Links of the prose (not of code blocks or code spans): `[text](target)`. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  splitFences(markdown).prose.forEach((text, index) => {
    const withoutSpans = text.replace(/`[^`]*`/g, '');
    for (const match of withoutSpans.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ target: match[1]!, line: index + 1 });
  });
  return links;
}

export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}

/** The file and anchor a relative link points at, from the file that holds it. */
export function resolveLink(fromFile: string, target: string): { file: string; anchor: string | null } {
  const hash = target.indexOf('#');
  const pathPart = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  return { file: pathPart === '' ? fromFile : path.resolve(path.dirname(fromFile), decodeURI(pathPart)), anchor };
}

/** Where a command starts: `coordinator`, `bin/runner`, `npx runner`, … but not `gitlab-runner`. */
const COMMAND = /(?:^|[\s;&|(])(?:npx\s+|\.?\/?bin\/)?(coordinator|runner)(?=\s|$)/g;
/** `npm start -- <flags>` passes its flags to `coordinator start`. */
const NPM_START = /(?:^|[\s;&|(])npm\s+start\s+--(?=\s)/g;

function commandsIn(text: string, line: number, subcommands: ReadonlyMap<string, ReadonlySet<string>>): ShownCommand[] {
  const found: ShownCommand[] = [];
  const starts: Array<{ at: number; bin: 'coordinator' | 'runner'; subcommand?: string }> = [];
  for (const match of text.matchAll(COMMAND)) starts.push({ at: match.index! + match[0].length, bin: match[1] as 'coordinator' | 'runner' });
  for (const match of text.matchAll(NPM_START)) starts.push({ at: match.index! + match[0].length, bin: 'coordinator', subcommand: 'start' });
  for (const start of starts) {
    // The command ends where the shell line goes on to something else.
    const rest = text.slice(start.at).split(/\s(?:\||;|&&|#)\s|\s#|`/)[0]!;
    const words = rest.trim().split(/\s+/).filter(Boolean);
    const known = subcommands.get(start.bin) ?? new Set<string>();
    const first = words.find((word) => !word.startsWith('-'));
    const subcommand = start.subcommand ?? (first !== undefined && known.has(first) && words.indexOf(first) === 0 ? first : null);
    const flags = [...rest.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((match) => match[0]);
    found.push({ bin: start.bin, subcommand, flags, line, text: `${start.bin} ${rest.trim()}` });
  }
  return found;
}

/**
 * The `coordinator` and `runner` commands the file shows — in code blocks (a line ending in
 * `\` goes on) and in code spans — with the flags given to each. `subcommands` names the
 * subcommands of each binary, so `runner lint FILE` reads as `lint` and `runner --version` as
 * the top level.
 */
export function shownCommands(markdown: string, subcommands: ReadonlyMap<string, ReadonlySet<string>>): ShownCommand[] {
  const { prose, code } = splitFences(markdown);
  const commands: ShownCommand[] = [];
  let pending: { line: number; text: string } | null = null;
  for (const { line, text } of code) {
    const joined: { line: number; text: string } = pending ? { line: pending.line, text: `${pending.text} ${text}` } : { line, text };
    if (/\\\s*$/.test(text)) {
      pending = { line: joined.line, text: joined.text.replace(/\\\s*$/, '') };
      continue;
    }
    pending = null;
    commands.push(...commandsIn(joined.text, joined.line, subcommands));
  }
  const lineStarts: number[] = [];
  let offset = 0;
  for (const text of prose) {
    lineStarts.push(offset);
    offset += text.length + 1;
  }
  const proseText = prose.join('\n');
  for (const span of proseText.matchAll(/`([^`]+)`/g)) {
    const line = lineStarts.findLastIndex((start) => start <= span.index!) + 1;
    commands.push(...commandsIn(span[1]!.replace(/\n/g, ' '), line, subcommands));
  }
  return commands;
}

/** The subcommand names a yargs `--help` lists (`  runner lint [file]  Compile…` → `lint`). */
export function subcommandsOf(bin: string, help: string): Set<string> {
  const names = new Set<string>();
  for (const match of help.matchAll(new RegExp(`^\\s+${bin} ([a-z][a-z-]*)`, 'gm'))) names.add(match[1]!);
  return names;
}

/** The flags a `--help` output lists, aliases included. */
export function flagsOf(help: string): Set<string> {
  return new Set([...help.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((match) => match[0]));
}
