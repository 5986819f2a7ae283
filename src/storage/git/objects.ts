import { GitContentError } from './content.ts';
import type { GitCommit, GitPerson, GitTreeEntry } from './types.ts';

/** "Name <email> 1700000000 +0200" → person with an ISO UTC date. */
export function parsePerson(value: string): GitPerson {
  const match = /^(.*?) ?<([^>]*)> (-?\d+) [+-]\d{4}$/.exec(value);
  if (!match) return { name: value, email: '', date: new Date(0).toISOString() };
  return { name: match[1]!, email: match[2]!, date: new Date(Number(match[3]) * 1000).toISOString() };
}

interface ParsedObject {
  headers: Array<[string, string]>;
  message: string;
}

/** Splits a commit or tag object into header lines and the message (continuation lines joined). */
function parseHeaders(data: Buffer): ParsedObject {
  const text = data.toString('utf8');
  const split = text.indexOf('\n\n');
  const head = split < 0 ? text : text.slice(0, split);
  const message = split < 0 ? '' : text.slice(split + 2);
  const headers: Array<[string, string]> = [];
  for (const line of head.split('\n')) {
    if (line.startsWith(' ') && headers.length > 0) {
      headers[headers.length - 1]![1] += `\n${line.slice(1)}`;
      continue;
    }
    const space = line.indexOf(' ');
    if (space > 0) headers.push([line.slice(0, space), line.slice(space + 1)]);
  }
  return { headers, message };
}

export function titleOf(message: string): string {
  const line = message.split('\n', 1)[0] ?? '';
  return line.trimEnd();
}

export function parseCommit(id: string, data: Buffer): GitCommit {
  const { headers, message } = parseHeaders(data);
  const value = (name: string): string => headers.find(([key]) => key === name)?.[1] ?? '';
  return {
    id,
    parent_ids: headers.filter(([key]) => key === 'parent').map(([, parent]) => parent),
    tree_id: value('tree'),
    title: titleOf(message),
    message,
    author: parsePerson(value('author')),
    committer: parsePerson(value('committer')),
  };
}

export interface ParsedTag {
  object: string;
  type: string;
  name: string;
  tagger: GitPerson | null;
  message: string;
}

export function parseTag(data: Buffer): ParsedTag {
  const { headers, message } = parseHeaders(data);
  const value = (name: string): string => headers.find(([key]) => key === name)?.[1] ?? '';
  const tagger = value('tagger');
  // A signed tag carries its signature after the message; GitLab shows the message only.
  const signature = message.indexOf('-----BEGIN PGP SIGNATURE-----');
  return {
    object: value('object'),
    type: value('type'),
    name: value('tag'),
    tagger: tagger ? parsePerson(tagger) : null,
    message: signature >= 0 ? message.slice(0, signature) : message,
  };
}

/** Binary tree object: "<mode> <name>\0<20-byte id>" repeated. A malformed one is a GitContentError. */
export function parseTree(data: Buffer, parentPath: string): GitTreeEntry[] {
  const entries: GitTreeEntry[] = [];
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(32, offset);
    const nul = space < 0 ? -1 : data.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > data.length) throw new GitContentError('a corrupt tree (too short)');
    const rawMode = data.toString('latin1', offset, space);
    if (!/^[0-7]{5,6}$/.test(rawMode)) throw new GitContentError('a tree entry with a malformed mode');
    const name = data.toString('utf8', space + 1, nul);
    if (name === '') throw new GitContentError('a tree entry with an empty name');
    const id = data.toString('hex', nul + 1, nul + 21);
    offset = nul + 21;
    const mode = rawMode.padStart(6, '0');
    entries.push({ id, name, type: typeOfMode(mode), path: parentPath ? `${parentPath}/${name}` : name, mode });
  }
  return entries;
}

export function typeOfMode(mode: string): GitTreeEntry['type'] {
  if (mode === '040000') return 'tree';
  if (mode === '160000') return 'commit';
  return 'blob';
}
