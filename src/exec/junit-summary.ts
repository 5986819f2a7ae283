/**
 * `runner exec`'s JUnit summary: each finished job's `artifacts:reports:junit` (the gzip the
 * runner uploaded, one member per file) read as GitLab's JUnit parser reads it — every
 * `<testcase>`, failed with a `<failure>`, errored with an `<error>`, skipped with a
 * `<skipped>` child, in that order of precedence — and summarised per job. The XML is
 * scanned as it streams, within a budget: at most JUNIT_LIMITS.unpacked bytes unpacked, no
 * tag longer than JUNIT_LIMITS.construct, no nesting deeper than JUNIT_LIMITS.depth; no
 * DTD is read and no entity expanded but XML's five and numeric character references.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import type { ExecResult } from './output.ts';
import type { LocalCoordinator } from './session.ts';

export const JUNIT_LIMITS = {
  /** Bytes of XML read per job; the rest is left out (the summary says `truncated`). */
  unpacked: 32 * 1024 * 1024,
  /** Characters of one tag, comment, CDATA section or declaration. */
  construct: 1024 * 1024,
  depth: 256,
  /** Failed (and errored) test names kept per job. */
  failedNames: 10,
} as const;

export interface JunitTestCase {
  name: string;
  classname: string;
  status: 'failed' | 'error';
}

export interface JunitSummary {
  job: string;
  jobId: number;
  total: number;
  failed: number;
  errored: number;
  skipped: number;
  /** The first failed or errored tests, at most JUNIT_LIMITS.failedNames. */
  failedTests: JunitTestCase[];
  /** Over a limit: the counts are those of the part read. */
  truncated: boolean;
  /** Why the report could not be read to its end (not gzip, broken XML), if it could not. */
  error?: string;
}

/**
 * Summarises the JUnit reports of `outcome`'s jobs: added to it as `junit` (for --json) and
 * written, with `write`, as a block of lines; nothing when no job has a report.
 */
export async function summariseJunitReports(local: LocalCoordinator, outcome: ExecResult, write: (text: string) => void): Promise<void> {
  const summaries: JunitSummary[] = [];
  for (const job of outcome.jobs) {
    const report = await local.coordinator.context.stores.jobArtifacts.find(job.id, 'junit');
    if (!report || report.file_format !== 'gzip') continue;
    summaries.push({ job: job.name, jobId: job.id, ...(await readJunitReport(path.join(local.dataDir, report.path))) });
  }
  if (summaries.length === 0) return;
  Object.assign(outcome, { junit: summaries });
  write(formatJunitSummaries(summaries));
}

export function formatJunitSummaries(summaries: readonly JunitSummary[]): string {
  const width = Math.max(...summaries.map((summary) => summary.job.length));
  const lines = ['', 'JUnit reports:'];
  for (const summary of summaries) {
    const passed = summary.total - summary.failed - summary.errored - summary.skipped;
    lines.push(
      `  ${summary.job.padEnd(width)}  ${summary.total} tests: ${passed} passed, ${summary.failed} failed, ${summary.errored} errored, ${summary.skipped} skipped` +
        `${summary.truncated ? ' (report truncated)' : ''}${summary.error ? ` (unreadable: ${summary.error})` : ''}`,
    );
    for (const test of summary.failedTests) lines.push(`    ${test.status === 'error' ? 'error' : 'failed'}: ${test.classname ? `${test.classname} › ` : ''}${test.name}`);
    const more = summary.failed + summary.errored - summary.failedTests.length;
    if (more > 0) lines.push(`    … and ${more} more`);
  }
  return `${lines.join('\n')}\n`;
}

type Counts = Omit<JunitSummary, 'job' | 'jobId'>;

/** One report file (gzip members of JUnit XML documents) read within JUNIT_LIMITS. */
export async function readJunitReport(file: string): Promise<Counts> {
  const scanner = new JunitScanner();
  const decoder = new StringDecoder('utf8');
  const gunzip = createGunzip();
  const source = createReadStream(file);
  let read = 0;
  try {
    for await (const chunk of source.pipe(gunzip) as AsyncIterable<Buffer>) {
      const room = JUNIT_LIMITS.unpacked - read;
      read += chunk.length;
      scanner.feed(decoder.write(room < chunk.length ? chunk.subarray(0, room) : chunk));
      if (read > JUNIT_LIMITS.unpacked) {
        scanner.counts.truncated = true;
        gunzip.destroy();
        break;
      }
    }
    scanner.feed(decoder.end());
  } catch (error) {
    scanner.counts.error = error instanceof JunitFormatError ? error.message : 'not a gzip file';
  } finally {
    source.destroy();
    gunzip.destroy();
  }
  return scanner.counts;
}

class JunitFormatError extends Error {}

// Linear: the quoted and unquoted parts begin with different characters, so nothing backtracks.
const TAG = /<[^<>"'[\]]*(?:(?:"[^"]*"|'[^']*')[^<>"'[\]]*)*>/y;
const ATTRIBUTE = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const ENTITY = /&(lt|gt|amp|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** A streaming scanner of the JUnit subset: elements and attributes; text, comments, CDATA and declarations skipped. */
export class JunitScanner {
  readonly counts: Counts = { total: 0, failed: 0, errored: 0, skipped: 0, failedTests: [], truncated: false };
  private buffer = '';
  private readonly stack: string[] = [];
  private testCase: { name: string; classname: string; status: 'success' | 'failed' | 'error' | 'skipped'; depth: number } | undefined;

  feed(text: string): void {
    this.buffer += text;
    let position = 0;
    for (;;) {
      const open = this.buffer.indexOf('<', position);
      if (open < 0) {
        position = this.buffer.length;
        break;
      }
      const end = this.constructEnd(open);
      if (end < 0) {
        position = open;
        if (this.buffer.length - open > JUNIT_LIMITS.construct) throw new JunitFormatError(`a tag or comment longer than ${JUNIT_LIMITS.construct} characters`);
        break;
      }
      const construct = this.buffer.slice(open, end);
      if (/^<[A-Za-z_/]/.test(construct)) this.element(construct);
      position = end;
    }
    this.buffer = this.buffer.slice(position);
  }

  /** Where the construct starting at `open` ends (after its last character); -1 when it has not arrived whole. */
  private constructEnd(open: number): number {
    const rest = (marker: string, closing: string) => {
      const at = this.buffer.indexOf(closing, open + marker.length);
      return at < 0 ? -1 : at + closing.length;
    };
    const head = this.buffer.slice(open, open + 9);
    // A marker cut at the chunk's end: wait for the rest before deciding what it is.
    if (head.length < 9 && ['<!--', '<![CDATA['].some((marker) => marker.length > head.length && marker.startsWith(head))) return -1;
    if (head.startsWith('<!--')) return rest('<!--', '-->');
    if (head.startsWith('<![CDATA[')) return rest('<![CDATA[', ']]>');
    if (head.startsWith('<?')) return rest('<?', '?>');
    // The common case at the regular expression engine's speed: a whole tag, quotes and all.
    TAG.lastIndex = open;
    const tag = TAG.exec(this.buffer);
    if (tag) return open + tag[0].length;
    let quote: string | undefined;
    let bracket = 0;
    for (let index = open + 1; index < this.buffer.length; index++) {
      const char = this.buffer[index];
      if (quote !== undefined) {
        if (char === quote) quote = undefined;
      } else if (char === '"' || char === "'") quote = char;
      // A DOCTYPE's internal subset: its declarations hold `>`, the subset ends with `]`.
      else if (char === '[') bracket++;
      else if (char === ']') bracket = Math.max(0, bracket - 1);
      else if (char === '>' && bracket === 0) return index + 1;
    }
    return -1;
  }

  private element(tag: string): void {
    if (tag.startsWith('</')) {
      const name = localName(tag.slice(2, -1).trim());
      if (this.stack.at(-1) !== name) throw new JunitFormatError(`unexpected </${name}>`);
      this.stack.pop();
      if (this.testCase && this.stack.length === this.testCase.depth) this.finishTestCase();
      return;
    }
    const selfClosing = tag.endsWith('/>');
    const body = tag.slice(1, selfClosing ? -2 : -1);
    const name = localName(/^[^\s/>]+/.exec(body)?.[0] ?? '');
    if (name === 'testcase' && !this.testCase) {
      const attributes = attributesOf(body);
      this.testCase = { name: attributes.get('name') ?? '', classname: attributes.get('classname') ?? '', status: 'success', depth: this.stack.length };
    } else if (this.testCase && this.stack.length === this.testCase.depth + 1) {
      // Direct children only, as GitLab looks at the testcase's own keys.
      this.testCase.status = strongerStatus(this.testCase.status, name);
    }
    if (selfClosing) {
      if (this.testCase && this.stack.length === this.testCase.depth) this.finishTestCase();
      return;
    }
    if (this.stack.length >= JUNIT_LIMITS.depth) throw new JunitFormatError(`elements nested deeper than ${JUNIT_LIMITS.depth}`);
    this.stack.push(name);
  }

  private finishTestCase(): void {
    const testCase = this.testCase!;
    this.testCase = undefined;
    const counts = this.counts;
    counts.total++;
    if (testCase.status === 'skipped') counts.skipped++;
    if (testCase.status !== 'failed' && testCase.status !== 'error') return;
    if (testCase.status === 'failed') counts.failed++;
    else counts.errored++;
    if (counts.failedTests.length < JUNIT_LIMITS.failedNames) counts.failedTests.push({ name: testCase.name, classname: testCase.classname, status: testCase.status });
  }
}

/** GitLab's order: a failure makes a failed test whatever else it holds, then an error, then skipped. */
function strongerStatus(current: 'success' | 'failed' | 'error' | 'skipped', child: string): 'success' | 'failed' | 'error' | 'skipped' {
  const rank = { success: 0, skipped: 1, error: 2, failed: 3 } as const;
  const found = child === 'failure' ? 'failed' : child === 'error' ? 'error' : child === 'skipped' ? 'skipped' : 'success';
  return rank[found] > rank[current] ? found : current;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

function attributesOf(body: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of body.matchAll(ATTRIBUTE)) attributes.set(match[1]!, decodeEntities(match[2] ?? match[3] ?? ''));
  return attributes;
}

function decodeEntities(value: string): string {
  return value.replace(ENTITY, (whole, entity: string) => {
    if (!entity.startsWith('#')) return NAMED[entity] ?? whole;
    const code = entity[1] === 'x' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
