/**
 * Loads one CI file: YAML with anchors, merge keys and `!reference`, key positions for
 * diagnostics, and the abuse limits (size, depth, alias expansion).
 */
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  parseDocument,
  Scalar,
  type CollectionTag,
  type Document,
  type Tags,
  type Node,
} from 'yaml';
import { pathKey, type FilePositions } from './diagnostics.ts';
import type { CompileLimits } from './limits.ts';
import { isPlainObject, RubyFloat, YamlReference, type PlainObject } from './values.ts';
import { applyMergeKeys, isMergeKey, mergeKeyMark } from './yaml-merge-keys.ts';
import { prescanYaml } from './yaml-prescan.ts';
import { DISALLOWED_CLASS_PREFIX, rubyScalarTags } from './yaml-ruby-scalars.ts';
import { MAX_QUOTED_REPAIRS, reindentQuotedScalar } from './yaml-quoted-lines.ts';

export const TOO_BIG_MESSAGE = 'The parsed YAML is too big';
export const INVALID_FORMAT_MESSAGE = 'Invalid configuration format';

const referenceTag: CollectionTag = {
  tag: '!reference',
  collection: 'seq',
  resolve(value) {
    const nodes = isSeq(value) ? value.items : [];
    const path = nodes.map((item) => (isScalar(item) && item.value !== null ? String(item.value) : null));
    return new Scalar(new YamlReference(path, nodes.map((item) => (isScalar(item) ? item.value : item))));
  },
};

/** `disallowed-class`: a plain date or time, which GitLab's loader refuses to load (its `detail` is GitLab's message). */
export type LoadFailure = 'syntax' | 'too-big' | 'not-a-hash' | 'empty' | 'disallowed-class';

export type LoadResult =
  /** `header`: a first document holding only `spec:` (GitLab's `spec:inputs` header), when there is one. */
  | { ok: true; value: PlainObject; positions: FilePositions; header?: PlainObject }
  | { ok: false; failure: LoadFailure; line: number | null; detail: string };

export function loadYaml(text: string, file: string, limits: CompileLimits): LoadResult {
  if (Buffer.byteLength(text, 'utf8') > limits.maxFileBytes) {
    return { ok: false, failure: 'too-big', line: null, detail: `file is larger than ${limits.maxFileBytes} bytes` };
  }
  if (text.trim() === '') return { ok: false, failure: 'empty', line: null, detail: 'empty file' };
  // Refused before any node is built: building an over-deep document is what costs memory.
  const problem = prescanYaml(text, limits);
  if (problem) {
    return { ok: false, failure: 'too-big', line: null, detail: problem === 'too-deep' ? 'document is nested too deeply' : 'too many aliases' };
  }

  // libyaml accepts quoted scalars continued at or left of their parent's indentation; the
  // yaml library does not: such a scalar is re-indented (no value changes) and parsed again.
  let parsed = parseDocuments(text);
  for (let repairs = 0; repairs < MAX_QUOTED_REPAIRS; repairs++) {
    const error = parsed.doc.errors[0];
    if (!error || error.code !== 'MISSING_CHAR' || !/closing .?quote/i.test(error.message)) break;
    const repaired = reindentQuotedScalar(parsed.text, error.pos[0]);
    if (repaired === null) break;
    parsed = parseDocuments(repaired);
  }
  const { doc, list, withHeader, lineCounter } = parsed;
  let header: PlainObject | undefined;
  if (withHeader) {
    const headerMerges = { count: 0 };
    walkKeys(list[0].contents, [], { file, lines: new Map() }, lineCounter, limits.maxYamlDepth, headerMerges);
    const value = withMergeKeys(list[0].toJS({ maxAliasCount: limits.maxAliasCount }), headerMerges.count);
    if (isPlainObject(value)) header = value;
  }
  const firstError = doc.errors[0];
  if (firstError) {
    const line = firstError.linePos?.[0]?.line ?? lineCounter.linePos(firstError.pos[0]).line;
    const disallowed = firstError.code === 'TAG_RESOLVE_FAILED' && firstError.message.startsWith(DISALLOWED_CLASS_PREFIX);
    return { ok: false, failure: disallowed ? 'disallowed-class' : 'syntax', line, detail: firstError.message };
  }

  const positions: FilePositions = { file, lines: new Map() };
  const merges = { count: 0 };
  if (!walkKeys(doc.contents, [], positions, lineCounter, limits.maxYamlDepth, merges)) {
    return { ok: false, failure: 'too-big', line: null, detail: 'document is nested too deeply' };
  }

  let value: unknown;
  try {
    value = withMergeKeys(doc.toJS({ maxAliasCount: limits.maxAliasCount }), merges.count);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const failure = /excessive alias count/i.test(detail) ? 'too-big' : 'syntax';
    return { ok: false, failure, line: null, detail };
  }
  if (value === null || value === undefined) return { ok: false, failure: 'empty', line: null, detail: 'empty document' };
  if (!isPlainObject(value)) return { ok: false, failure: 'not-a-hash', line: 1, detail: 'document is not a hash' };
  // Aliases may form cycles (`a: &a [*a]`) or expand very deep: bound the depth of the value.
  if (!withinDepth(value, limits.maxYamlDepth)) {
    return { ok: false, failure: 'too-big', line: null, detail: 'document is nested too deeply' };
  }
  return { ok: true, value, positions, ...(header ? { header } : {}) };
}

// Merge keys are applied after `toJS`, in Ruby's order (yaml-merge-keys.ts).
// Plain scalars are typed as Ruby's YAML types them (yaml-ruby-scalars.ts).
const PARSE_OPTIONS = {
  merge: false,
  customTags: (tags: Tags): Tags => [...rubyScalarTags(tags), referenceTag],
  uniqueKeys: false,
  prettyErrors: false,
};

interface ParsedText {
  text: string;
  doc: Document.Parsed;
  /** Every document, when the text is a `spec:` header, `---` and the configuration. */
  list: Document.Parsed[];
  withHeader: boolean;
  lineCounter: LineCounter;
}

/**
 * One document, or a header document (`spec:`), `---` and the configuration (GitLab's
 * `spec:inputs`), blank documents aside; anything else is parsed as one document again for
 * its error.
 */
function parseDocuments(text: string): ParsedText {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { ...PARSE_OPTIONS, lineCounter });
  // GitLab drops blank documents (a trailing `---`, one holding only comments).
  const list = (Array.isArray(documents) ? documents : []).filter((document) => document.errors.length > 0 || !isBlank(document.contents));
  const withHeader = list.length === 2 && list[0].errors.length === 0 && isHeader(list[0].contents);
  const doc = list.length === 1 ? list[0] : withHeader ? list[1] : undefined;
  if (doc) return { text, doc, list, withHeader, lineCounter };
  const single = new LineCounter();
  return { text, doc: parseDocument(text, { ...PARSE_OPTIONS, lineCounter: single }), list, withHeader, lineCounter: single };
}

function withMergeKeys(value: unknown, count: number): unknown {
  return count === 0 ? value : applyMergeKeys(value);
}

/** A document Ruby would call blank: nothing, null, false, an empty or blank string, `{}` or `[]`. */
function isBlank(node: unknown): boolean {
  if (node === null || node === undefined) return true;
  if (isScalar(node)) return node.value === null || node.value === false || (typeof node.value === 'string' && node.value.trim() === '');
  return (isMap(node) || isSeq(node)) && node.items.length === 0;
}

/** A map whose only key is `spec`. */
function isHeader(node: unknown): boolean {
  return isMap(node) && node.items.length === 1 && isPair(node.items[0]) && isScalar(node.items[0].key) && node.items[0].key.value === 'spec';
}

/**
 * Ruby's YAML reads a plain scalar starting with `:` as a symbol (`:script` is `script` once
 * GitLab symbolizes the keys, `:"a b"` is `a b`); quoted scalars stay strings.
 */
function rubySymbolName(key: Scalar): string | undefined {
  if (key.type !== Scalar.PLAIN || typeof key.value !== 'string' || key.value.length < 2 || !key.value.startsWith(':')) return undefined;
  const quoted = /^:(["'])(.*)\1$/s.exec(key.value);
  return quoted ? quoted[2] : key.value.slice(1);
}

/**
 * Walks the document's maps before it becomes a value: records each key's line for
 * diagnostics, renames Ruby-symbol keys (`:test_job:`) to the names GitLab reads, and marks
 * merge keys (counted in `merges`) so that each survives to be applied in order.
 */
function walkKeys(
  node: Node | null,
  path: (string | number)[],
  positions: FilePositions,
  lineCounter: LineCounter,
  depthLeft: number,
  merges: { count: number },
): boolean {
  if (depthLeft < 0) return false;
  if (!node || isAlias(node)) return true;
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const symbol = rubySymbolName(pair.key);
      if (symbol !== undefined) pair.key.value = symbol;
      if (isMergeKey(pair.key.value, pair.key.tag)) {
        pair.key.value = mergeKeyMark(merges.count++, isSeq(pair.value));
        if (!walkKeys(pair.value as Node | null, path, { file: positions.file, lines: new Map() }, lineCounter, depthLeft - 1, merges)) return false;
        continue;
      }
      const key = String(pair.key.value);
      if (path.length === 0 && isNonTextKey(pair.key.value)) (positions.untypedKeys ??= new Set()).add(key);
      const childPath = [...path, key];
      const offset = pair.key.range?.[0];
      if (offset !== undefined) positions.lines.set(pathKey(childPath), lineCounter.linePos(offset).line);
      if (!walkKeys(pair.value as Node | null, childPath, positions, lineCounter, depthLeft - 1, merges)) return false;
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => {
      const childPath = [...path, index];
      const offset = (item as Node | null)?.range?.[0];
      if (offset !== undefined) positions.lines.set(pathKey(childPath), lineCounter.linePos(offset).line);
    });
    for (let index = 0; index < node.items.length; index++) {
      if (!walkKeys(node.items[index] as Node | null, [...path, index], positions, lineCounter, depthLeft - 1, merges)) {
        return false;
      }
    }
  }
  return true;
}

/** A key Ruby's YAML types as a number or a boolean: GitLab's symbolized keys leave it so. */
function isNonTextKey(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'boolean' || value instanceof RubyFloat;
}

function withinDepth(value: unknown, depthLeft: number): boolean {
  if (depthLeft < 0) return false;
  if (Array.isArray(value)) return value.every((item) => withinDepth(item, depthLeft - 1));
  if (isPlainObject(value)) return Object.values(value).every((item) => withinDepth(item, depthLeft - 1));
  return true;
}
