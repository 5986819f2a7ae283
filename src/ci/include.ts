/**
 * `include`: local files, files of other projects, several and nested; in a child pipeline
 * also files from a parent job's artifacts. Included files are deep-merged in order, then
 * the including file on top (its keys win).
 */
import { pathKey, type DiagnosticSink, type FilePositions, type SourceLocator } from './diagnostics.ts';
import type { CompileLimits } from './limits.ts';
import type { IncludedFile, RepositoryReader } from './model.ts';
import { deepMerge, isPlainObject, isStringArray, rubyJson, type PlainObject } from './values.ts';
import { loadYaml, TOO_BIG_MESSAGE } from './yaml-loader.ts';
import { UntrustedRegexp } from './expression/regexp.ts';
import { applyInputs } from './inputs.ts';
import { expandIncludeText, type IncludeVariables } from './include-variables.ts';
import { readComponent } from './include-component.ts';
import { readRemote } from './include-remote.ts';
import { shippedTemplate } from './include-template.ts';
import { readIncludeRules, type IncludeRule, type IncludeRulesEvaluator } from './include-rules.ts';
import { RuleClauseError } from './conditions.ts';

type ReadableLocation = Exclude<IncludeLocation, { kind: 'unsupported' } | { kind: 'component' }>;

/** `inputs`: the `include:inputs` for the file's `spec:inputs` header; `rules`: its `include:rules`. */
interface LocationExtras {
  inputs?: PlainObject;
  rules?: IncludeRule[];
}

type IncludeLocation =
  | ({ kind: 'local'; path: string; display: PlainObject } & LocationExtras)
  | ({ kind: 'project'; project: string; ref: string | undefined; path: string; display: PlainObject } & LocationExtras)
  | ({ kind: 'artifact'; job: string | null; path: string; display: PlainObject } & LocationExtras)
  /** `path` is the URL. */
  | ({ kind: 'remote'; path: string; integrity?: string; display: PlainObject } & LocationExtras)
  | ({ kind: 'component'; address: string; display: PlainObject } & LocationExtras)
  /** `path` is the template's name; its text is one Gantry ships (include-template.ts). */
  | ({ kind: 'template'; path: string; display: PlainObject } & LocationExtras)
  | { kind: 'unsupported'; what: string; display: PlainObject };

/** Which project a file belongs to: local includes inside a project file read that project. */
interface FileScope {
  project: string | null;
  ref: string | undefined;
  /** A remote file's: GitLab reads it with no project, so its local includes have none to read. */
  remote?: true;
}

interface IncludeState {
  reader: RepositoryReader;
  limits: CompileLimits;
  sink: DiagnosticSink;
  locator: SourceLocator;
  seen: Set<string>;
  count: number;
  /** Included files in merge order, for the locator (added later in reverse). */
  loadedFiles: FilePositions[];
  positionsByFile: Map<string, FilePositions>;
  /** The project's files, listed once for wildcard includes. */
  files?: Promise<string[]>;
  rules?: IncludeRulesEvaluator;
  /** What entries' locations and inputs' `expand_vars` may use; without them a `$` stays as written. */
  variables?: IncludeVariables;
  /** Where `include:component` addresses start on this coordinator (include-component.ts). */
  componentPrefixes: readonly string[];
  /** Every file read, in order (lint's `includes`). */
  included: IncludedFile[];
}

export type { IncludeRule, IncludeRulesEvaluator };

export async function expandIncludes(
  main: PlainObject,
  mainPositions: FilePositions,
  reader: RepositoryReader,
  limits: CompileLimits,
  sink: DiagnosticSink,
  locator: SourceLocator,
  rules?: IncludeRulesEvaluator,
  variables?: IncludeVariables,
  componentPrefixes: readonly string[] = [],
  included: IncludedFile[] = [],
): Promise<PlainObject> {
  const state: IncludeState = {
    reader, limits, sink, locator, seen: new Set(), count: 0, loadedFiles: [], componentPrefixes, included,
    positionsByFile: new Map([[mainPositions.file, mainPositions]]),
    ...(rules ? { rules } : {}),
    ...(variables ? { variables } : {}),
  };
  const result = await expandFile(main, mainPositions.file, { project: null, ref: undefined }, state, 0);
  for (const loaded of [...state.loadedFiles].reverse()) locator.add(loaded);
  return result;
}

async function expandFile(
  content: PlainObject,
  file: string,
  scope: FileScope,
  state: IncludeState,
  depth: number,
): Promise<PlainObject> {
  if (!('include' in content)) return content;
  const { include, ...rest } = content;
  const locations = normalizeIncludes(include, file, state);
  let merged: PlainObject = {};
  for (const location of locations) {
    if (location.kind !== 'unsupported' && location.rules && !(await rulesTake(location.rules, state, file))) continue;
    for (const each of await expandWildcard(location, scope, state)) {
      if (state.sink.hasErrors) break;
      const included = await loadLocation(each, scope, state, depth + 1, file);
      if (included) merged = deepMerge(merged, included);
    }
  }
  return deepMerge(merged, rest);
}

/**
 * `include:local` with `*` or `**` (GitLab 13.11): the project's files the pattern matches, in
 * path order, as GitLab's `search_files_by_wildcard_path` finds them: `**` is any run of
 * characters, `/` included, `*` any run without `/`. No match includes nothing.
 */
async function expandWildcard(location: IncludeLocation, scope: FileScope, state: IncludeState): Promise<IncludeLocation[]> {
  if (location.kind !== 'local' || scope.project !== null || scope.remote || !location.path.includes('*') || !state.reader.listFiles) return [location];
  state.files ??= state.reader.listFiles();
  const pattern = location.path.replace(/^\/+/, '');
  const source = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]*?').replace(/\u0000/g, '.*?');
  // RE2, as GitLab's search uses: linear in the path whatever the pattern.
  const matcher = UntrustedRegexp.compile(`^${source}$`, '');
  return (await state.files)
    .filter((path) => matcher.test(path))
    .sort()
    .map((path) => ({ kind: 'local' as const, path, display: { local: path }, ...(location.inputs ? { inputs: location.inputs } : {}) }));
}

function normalizeIncludes(include: unknown, file: string, state: IncludeState): IncludeLocation[] {
  const entries = Array.isArray(include) ? include : [include];
  const locations: IncludeLocation[] = [];
  for (const entry of entries) {
    if (entry === null || entry === undefined) continue;
    if (typeof entry === 'string') {
      locations.push(normalizeString(expandLocation(entry, state)));
    } else if (isPlainObject(entry)) {
      locations.push(...normalizeHash(expandLocationKeys(entry, state), file, state));
    } else {
      includeError(state, 'Include config has to be either a string or a hash', file);
    }
  }
  return locations;
}

/** The keys of an entry that name where the file is: variables expand in them (not in `inputs` or `rules`). */
const LOCATION_KEYS = ['local', 'project', 'file', 'ref', 'remote', 'template', 'component', 'artifact', 'job'];

function expandLocation(text: string, state: IncludeState): string {
  return state.variables ? expandIncludeText(text, state.variables) : text;
}

function expandLocationKeys(entry: PlainObject, state: IncludeState): PlainObject {
  if (!state.variables) return entry;
  const out: PlainObject = { ...entry };
  for (const key of LOCATION_KEYS) {
    const value = entry[key];
    if (typeof value === 'string') out[key] = expandLocation(value, state);
    else if (Array.isArray(value)) out[key] = value.map((item: unknown) => (typeof item === 'string' ? expandLocation(item, state) : item));
  }
  return out;
}

function normalizeString(location: string): IncludeLocation {
  if (/^https?:\/\//i.test(location)) return { kind: 'remote', path: location, display: { remote: location } };
  return { kind: 'local', path: location, display: { local: location } };
}

function normalizeHash(entry: PlainObject, file: string, state: IncludeState): IncludeLocation[] {
  const accessors = ['local', 'project', 'remote', 'template', 'artifact', 'component'].filter((key) => key in entry);
  if (accessors.length !== 1) {
    includeError(state, `Include \`${rubyJson(entry)}\` needs to match exactly one accessor!`, file);
    return [];
  }
  const rules = readIncludeRules(entry, state.limits.maxExpressionTokens, (problem) => {
    includeError(state, `Include \`${rubyJson(entry)}\` rules ${problem}`, file);
  });
  if (rules === null) return [];
  const inputs = { ...(isPlainObject(entry.inputs) ? { inputs: entry.inputs } : {}), ...(rules ? { rules } : {}) };
  if (typeof entry.local === 'string') return [{ kind: 'local', path: entry.local, display: entry, ...inputs }];
  if (typeof entry.component === 'string') return [{ kind: 'component', address: entry.component, display: entry, ...inputs }];
  if (typeof entry.remote === 'string') {
    return [{ kind: 'remote', path: entry.remote, ...(typeof entry.integrity === 'string' ? { integrity: entry.integrity } : {}), display: entry, ...inputs }];
  }
  if (typeof entry.artifact === 'string') {
    return [{ kind: 'artifact', path: entry.artifact, job: typeof entry.job === 'string' && entry.job !== '' ? entry.job : null, display: entry, ...inputs }];
  }
  if (typeof entry.project === 'string') {
    const files = typeof entry.file === 'string' ? [entry.file] : isStringArray(entry.file) ? entry.file : null;
    if (!files) {
      includeError(state, `Include \`${rubyJson(entry)}\` needs to match exactly one accessor!`, file);
      return [];
    }
    const ref = typeof entry.ref === 'string' ? entry.ref : undefined;
    return files.map((path) => ({
      kind: 'project' as const,
      project: entry.project as string,
      ref,
      path,
      display: { project: entry.project, file: path, ...(ref === undefined ? {} : { ref }) },
      ...inputs,
    }));
  }
  if (typeof entry.template === 'string' && shippedTemplate(entry.template) !== null) {
    return [{ kind: 'template', path: entry.template, display: entry, ...inputs }];
  }
  const what = accessors[0] === 'template' ? 'Template' : 'Unsupported';
  return [{ kind: 'unsupported', what, display: entry }];
}

async function loadLocation(
  location: IncludeLocation,
  scope: FileScope,
  state: IncludeState,
  depth: number,
  parentFile: string,
): Promise<PlainObject | null> {
  const { limits } = state;
  if (location.kind === 'unsupported') {
    includeError(state, `${location.what} include \`${rubyJson(location.display)}\` is not supported by this coordinator!`, parentFile);
    return null;
  }
  if (location.kind === 'artifact' && !artifactContextValid(location, state, parentFile)) return null;
  if (location.kind === 'local' && scope.remote) {
    const shown = location.path.replace(/^\/+/, '');
    includeError(state, `Local file \`${state.variables ? state.variables.mask(shown) : shown}\` does not have project!`, parentFile);
    return null;
  }
  if (state.count >= limits.maxIncludes) {
    includeError(state, `Maximum of ${limits.maxIncludes} nested includes are allowed!`, parentFile);
    return null;
  }
  if (depth > limits.maxIncludeDepth) {
    includeError(state, `Maximum include depth of ${limits.maxIncludeDepth} exceeded!`, parentFile);
    return null;
  }
  if (location.kind === 'component') {
    const component = await fetchComponent(location, state, parentFile);
    return component && loadReadable(component.location, component.text, scope, state, depth, parentFile, location.address);
  }
  const preloaded = location.kind === 'template' ? shippedTemplate(location.path) : null;
  return loadReadable(location, preloaded, scope, state, depth, parentFile);
}

async function loadReadable(
  location: ReadableLocation,
  preloaded: string | null,
  scope: FileScope,
  state: IncludeState,
  depth: number,
  parentFile: string,
  componentAddress?: string,
): Promise<PlainObject | null> {
  const { sink, limits } = state;
  const target = resolveTarget(location, scope);
  // The same file with other inputs is another inclusion (GitLab includes a template once per set of inputs).
  const identity = rubyJson([target.project, target.ref ?? null, target.path, location.inputs ?? null]);
  if (state.seen.has(identity)) {
    includeError(state, `Include \`${rubyJson(location.display)}\` was already included!`, parentFile);
    return null;
  }
  state.seen.add(identity);
  state.count += 1;

  const text = preloaded ?? (await readTarget(location, target, state, parentFile));
  if (text === null) return null;
  const named = location.kind === 'remote' ? location.path : location.kind === 'template' ? `template:${location.path}` : location.kind === 'artifact' ? `artifact:${location.job ?? ''}:${target.path}` : target.project === null ? target.path : `${target.project}:${target.path}`;
  // The file's name in diagnostics: a path expanded from a masked variable never shows it.
  const label = state.variables ? state.variables.mask(named) : named;
  const loaded = loadYaml(text, label, limits);
  if (!loaded.ok) {
    if (loaded.failure === 'too-big') sink.errorAt(TOO_BIG_MESSAGE, label, loaded.line);
    else if (loaded.failure === 'empty') {
      const what = location.kind === 'remote' ? 'Included file' : location.kind === 'artifact' ? 'File' : location.kind === 'project' ? `Project \`${target.project}\` file` : 'Local file';
      const shown = location.kind === 'remote' || location.kind === 'artifact' ? location.path : target.path;
      includeError(state, `${what} \`${shown}\` is empty${location.kind === 'remote' ? ' or does not exist' : ''}!`, parentFile);
    }
    else sink.errorAt(`Included file \`${state.variables ? state.variables.mask(location.path) : location.path}\` does not have valid YAML syntax!`, label, loaded.line);
    return null;
  }
  const applied = applyInputs(loaded.value, loaded.header, location.inputs, state.variables?.lookup);
  if (!applied.ok) {
    includeError(state, `\`${location.path}\`: ${applied.error}`, parentFile);
    return null;
  }
  state.loadedFiles.push(loaded.positions);
  state.included.push(includedFile(location, scope, state, componentAddress));
  state.positionsByFile.set(label, loaded.positions);
  const inner: FileScope = location.kind === 'remote' ? { project: null, ref: undefined, remote: true } : { project: target.project, ref: target.ref };
  return expandFile(applied.value, label, inner, state, depth);
}

/** What lint lists of a file read (GitLab's include metadata, its URLs made by the API). */
function includedFile(location: ReadableLocation, scope: FileScope, state: IncludeState, componentAddress: string | undefined): IncludedFile {
  const mask = (text: string): string => (state.variables ? state.variables.mask(text) : text);
  const context = { contextProject: scope.project, contextRef: scope.ref ?? null };
  if (componentAddress !== undefined) return { type: 'component', location: mask(componentAddress), project: location.kind === 'project' ? location.project : null, ref: location.kind === 'project' ? location.ref ?? null : null, extra: {}, ...context };
  switch (location.kind) {
    case 'local':
      return { type: 'local', location: mask(location.path.replace(/^\/+/, '')), project: scope.project, ref: scope.ref ?? null, extra: {}, ...context };
    case 'project':
      return { type: 'file', location: mask(location.path.replace(/^\/+/, '')), project: location.project, ref: location.ref ?? null, extra: { project: location.project, ...(location.ref === undefined ? {} : { ref: location.ref }) }, ...context };
    case 'remote':
      return { type: 'remote', location: mask(location.path), project: null, ref: null, extra: {}, ...context };
    case 'artifact':
      return { type: 'artifact', location: mask(location.path), project: null, ref: null, extra: { job_name: location.job ?? '' }, ...context };
    case 'template':
      return { type: 'template', location: location.path, project: null, ref: null, extra: {}, ...context };
  }
}

function resolveTarget(location: ReadableLocation, scope: FileScope) {
  if (location.kind === 'remote') return { project: scope.project, ref: scope.ref, path: location.path };
  const path = location.path.replace(/^\/+/, '');
  if (location.kind === 'project') return { project: location.project, ref: location.ref, path };
  // Artifacts belong to the parent pipeline of this project: their local includes read this project.
  if (location.kind === 'artifact') return { project: null, ref: `artifact:${location.job ?? ''}`, path };
  // A template's local includes read this project, as GitLab's template context keeps it.
  if (location.kind === 'template') return { project: null, ref: 'template', path: location.path };
  return { project: scope.project, ref: scope.ref, path };
}

async function readTarget(
  location: ReadableLocation,
  target: { project: string | null; ref: string | undefined; path: string },
  state: IncludeState,
  parentFile: string,
): Promise<string | null> {
  const { reader } = state;
  if (location.kind === 'artifact') return readArtifact(location.job ?? '', target.path, state, parentFile);
  if (location.kind === 'remote') return readRemote(location.path, location.integrity ?? null, state.reader, state.limits, (message) => includeError(state, message, parentFile));
  if (target.project === null) {
    const text = await reader.readFile(target.path);
    if (text === null) includeError(state, `Local file \`${target.path}\` does not exist!`, parentFile);
    return text;
  }
  if (!reader.readProjectFile) {
    includeError(state, `Project \`${target.project}\` not found or access denied!`, parentFile);
    return null;
  }
  const answer = await reader.readProjectFile(target.project, target.ref, target.path);
  if (answer.status === 'found') return answer.content;
  if (answer.status === 'project-not-found') {
    includeError(state, `Project \`${target.project}\` not found or access denied!`, parentFile);
  } else if (answer.status === 'ref-not-found') {
    const ref = state.variables ? state.variables.mask(answer.ref) : answer.ref;
    includeError(state, `Project \`${target.project}\` reference \`${ref}\` does not exist!`, parentFile);
  } else {
    includeError(state, `Project \`${target.project}\` file \`${target.path}\` does not exist!`, parentFile);
  }
  return null;
}

/** A component's file, as a file of its project at its version (include-component.ts). */
async function fetchComponent(
  location: Extract<IncludeLocation, { kind: 'component' }>,
  state: IncludeState,
  parentFile: string,
): Promise<{ location: ReadableLocation; text: string } | null> {
  const found = await readComponent(location.address, state.componentPrefixes, state.reader);
  if (!found.ok) {
    includeError(state, found.error, parentFile);
    return null;
  }
  const { project, version, path, text } = found;
  return { location: { kind: 'project', project, ref: version, path, display: location.display, ...(location.inputs ? { inputs: location.inputs } : {}) }, text };
}

/** GitLab `External::File::Artifact#validate_context!`. */
function artifactContextValid(location: { job: string | null }, state: IncludeState, parentFile: string): boolean {
  if (!state.reader.readArtifactFile) {
    includeError(state, 'Including configs from artifacts is only allowed when triggering child pipelines', parentFile);
    return false;
  }
  if (location.job === null) {
    includeError(state, 'Job must be provided when including configs from artifacts', parentFile);
    return false;
  }
  return true;
}

async function readArtifact(job: string, path: string, state: IncludeState, parentFile: string): Promise<string | null> {
  const answer = await state.reader.readArtifactFile?.(job, path);
  if (answer?.status === 'found') return answer.content;
  const message =
    answer?.status === 'file-not-found'
      ? `Path \`${path}\` does not exist inside the \`${job}\` artifacts archive!`
      : answer?.status === 'not-a-file'
        ? `Path \`${path}\` was expected to be a file but it was a directory!`
        : `Job \`${job}\` not found in parent pipeline or does not have artifacts!`;
  includeError(state, message, parentFile);
  return null;
}

async function rulesTake(rules: IncludeRule[], state: IncludeState, file: string): Promise<boolean> {
  if (!state.rules) {
    includeError(state, 'Include `rules` are not supported here', file);
    return false;
  }
  try {
    return await state.rules(rules);
  } catch (error) {
    // GitLab's InvalidIncludeRulesError: a clause that cannot be evaluated is the include's error.
    if (!(error instanceof RuleClauseError)) throw error;
    includeError(state, `include:${error.message}`, file);
    return false;
  }
}

function includeError(state: IncludeState, message: string, file: string): void {
  const line = state.positionsByFile.get(file)?.lines.get(pathKey(['include'])) ?? null;
  state.sink.errorAt(state.variables ? state.variables.mask(message) : message, file, line, ['include']);
}
