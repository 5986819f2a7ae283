/**
 * The thread of regex-budget.ts: compiles user patterns with RE2 (re2js) and matches them
 * (or finds a job's coverage in log lines, coverage-scan.ts), away from the thread that asked. Compiled patterns are kept, a bounded number of them.
 */
import { parentPort } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { lastCoverageIn } from './coverage-scan.ts';
import type { RegexOutcome, RegexRequest, RegexResponse } from './regex-budget.ts';

if (!parentPort) throw new Error('regex-budget-worker runs as a worker thread (regex-budget.ts starts it)');
const port = parentPort;

/** Patterns kept compiled: a hook's filter is matched at each push, so it compiles once. */
const CACHE_SIZE = 64;
const compiled = new Map<string, RE2JS | RegexOutcome>();

function compile(pattern: string, maxProgramSize: number): RE2JS | RegexOutcome {
  const known = compiled.get(pattern);
  if (known !== undefined) {
    // Most recently used last: the first key is the one to forget.
    compiled.delete(pattern);
    compiled.set(pattern, known);
    return known;
  }
  let result: RE2JS | RegexOutcome;
  try {
    const regexp = RE2JS.compile(pattern);
    result = regexp.programSize() > maxProgramSize ? 'over budget' : regexp;
  } catch {
    result = 'invalid';
  }
  if (compiled.size >= CACHE_SIZE) {
    const oldest = compiled.keys().next().value;
    if (oldest !== undefined) compiled.delete(oldest);
  }
  compiled.set(pattern, result);
  return result;
}

function answer(request: RegexRequest): RegexResponse {
  const regexp = compile(request.pattern, request.maxProgramSize);
  if (typeof regexp === 'string') return { id: request.id, outcome: regexp };
  if (request.coverageIn !== undefined) {
    const find = lastCoverageIn(regexp, request.coverageIn.text, request.coverageIn.stripTimestamps);
    return find.kind === 'found' ? { id: request.id, outcome: 'match', coverage: find.coverage } : { id: request.id, outcome: 'no match' };
  }
  if (request.text === undefined) return { id: request.id, outcome: 'valid' };
  return { id: request.id, outcome: regexp.test(request.text) ? 'match' : 'no match' };
}

port.on('message', (request: RegexRequest) => port.postMessage(answer(request)));
port.postMessage({ ready: true });
