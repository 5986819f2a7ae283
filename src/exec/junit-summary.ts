/**
 * `runner exec`'s JUnit summary: each finished job's `artifacts:reports:junit` (the gzip the
 * runner uploaded, one member per file) read as GitLab's JUnit parser reads it — every
 * `<testcase>`, failed with a `<failure>`, errored with an `<error>`, skipped with a
 * `<skipped>` child, in that order of precedence — and summarised per job. The XML is parsed
 * as it streams by saxes, within a budget: at most JUNIT_LIMITS.unpacked bytes unpacked and
 * no nesting deeper than JUNIT_LIMITS.depth; no DTD is read and no entity expanded but XML's
 * five and numeric character references.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { ExecResult } from './output.ts';
import type { LocalCoordinator } from './session.ts';

export const JUNIT_LIMITS = {
  /** Bytes of XML read per job; the rest is left out (the summary says `truncated`). */
  unpacked: 32 * 1024 * 1024,
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
  let unzipping = true;
  try {
    for await (const chunk of source.pipe(gunzip) as AsyncIterable<Buffer>) {
      const room = JUNIT_LIMITS.unpacked - read;
      read += chunk.length;
      scanner.feed(decoder.write(room < chunk.length ? chunk.subarray(0, room) : chunk));
      if (read > JUNIT_LIMITS.unpacked) {
        scanner.counts.truncated = true;
        break;
      }
    }
    unzipping = false;
    scanner.feed(decoder.end());
    if (!scanner.counts.truncated) scanner.end();
  } catch (error) {
    scanner.counts.error = error instanceof JunitFormatError ? error.message : unzipping ? 'not a gzip file' : String(error);
  } finally {
    source.destroy();
    gunzip.destroy();
  }
  return scanner.counts;
}

class JunitFormatError extends Error {}

/** Thrown from the parser's error handler when a second document begins after the root element closed at `position`. */
class DocumentEnd {
  constructor(readonly position: number) {}
}

/**
 * The test cases of a stream of JUnit XML documents, one after another: the runner uploads one
 * gzip member per file and gunzip joins them, so a document ends where its root element closes
 * and a new parser takes the rest.
 */
export class JunitScanner {
  readonly counts: Counts = { total: 0, failed: 0, errored: 0, skipped: 0, failedTests: [], truncated: false };
  private parser = this.newParser();
  /** Characters the current parser was given before the chunk it is reading. */
  private given = 0;
  private depth = 0;
  /** Where the current document's root element closed, if it has. */
  private rootClosedAt: number | undefined;
  private testCase: { name: string; classname: string; status: 'success' | 'failed' | 'error' | 'skipped'; depth: number } | undefined;

  feed(text: string): void {
    let rest = text;
    while (rest.length > 0) {
      // Before a document, only whitespace may separate it from the previous one.
      if (this.given === 0) rest = rest.replace(/^\s+/, '');
      if (rest.length === 0) return;
      try {
        this.parser.write(rest);
        this.given += rest.length;
        return;
      } catch (thrown) {
        if (!(thrown instanceof DocumentEnd)) throw thrown;
        rest = rest.slice(thrown.position - this.given);
        this.parser = this.newParser();
        this.given = 0;
        this.rootClosedAt = undefined;
      }
    }
  }

  /** The stream ended: a document left open is an error. */
  end(): void {
    if (this.given > 0) this.parser.close();
  }

  private newParser(): SaxesParser {
    const parser = new SaxesParser();
    parser.on('error', (error) => {
      // An entity a DTD would declare is left as written, as nothing of a DTD is read.
      if (/undefined entity/.test(error.message)) return;
      // Past the root's end, any complaint (a second declaration, a second root) is the next document.
      if (this.rootClosedAt !== undefined && parser.position > this.rootClosedAt) throw new DocumentEnd(this.rootClosedAt);
      throw new JunitFormatError(error.message);
    });
    parser.on('opentag', (tag) => this.open(tag));
    parser.on('closetag', (tag) => this.close(tag, parser.position));
    return parser;
  }

  private open(tag: SaxesTagPlain): void {
    const name = localName(tag.name);
    if (name === 'testcase' && !this.testCase) {
      this.testCase = { name: tag.attributes.name ?? '', classname: tag.attributes.classname ?? '', status: 'success', depth: this.depth };
    } else if (this.testCase && this.depth === this.testCase.depth + 1) {
      // Direct children only, as GitLab looks at the testcase's own keys.
      this.testCase.status = strongerStatus(this.testCase.status, name);
    }
    if (this.depth >= JUNIT_LIMITS.depth) throw new JunitFormatError(`elements nested deeper than ${JUNIT_LIMITS.depth}`);
    this.depth++;
  }

  private close(tag: SaxesTagPlain, position: number): void {
    this.depth--;
    if (this.testCase && this.depth === this.testCase.depth && localName(tag.name) === 'testcase') this.finishTestCase();
    if (this.depth === 0) this.rootClosedAt = position;
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
