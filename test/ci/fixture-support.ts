/** Loads a golden fixture case and reduces a compile result to its reviewed essentials. */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ArtifactFileResult, CompileContext, CompileResult, ContextVariable, JobDefinition, ProjectFileResult, RepositoryReader } from '../../src/ci/index.ts';

export interface FixtureContext {
  ref?: string;
  refType?: 'branch' | 'tag';
  refProtected?: boolean;
  source?: string;
  sha?: string;
  beforeSha?: string;
  commitMessage?: string;
  variables?: ContextVariable[];
  changedPaths?: string[] | null;
  /** `rules:changes:compare_to`: the paths changed since each ref the repository has (other refs name no commit). */
  comparisons?: Record<string, string[]>;
  ignoreSkipCi?: boolean;
  limits?: CompileContext['limits'];
  /** The coordinator (`CI_SERVER_*`, `CI_PROJECT_URL`); absent: compiled without one. */
  server?: CompileContext['server'];
  /** Other projects' files for include:project: `{"group/lib": {"ci/a.yml": "..."}}`. */
  projects?: Record<string, Record<string, string>>;
  /**
   * Compile as a child pipeline whose parent jobs have these artifacts (include:artifact):
   * `{"gen": {"out/child.yml": "...", "out/": null}}` (null: a directory).
   */
  parentArtifacts?: Record<string, Record<string, string | null>>;
  /** The pipeline's inputs for the main file's `spec:inputs` (the pipelines API's `inputs`). */
  inputs?: Record<string, unknown>;
}

const RESERVED = new Set(['expected.json', 'context.json']);

export async function loadFixture(directory: string): Promise<{ text: string; context: CompileContext }> {
  const files = new Map<string, string>();
  const walk = async (current: string): Promise<void> => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const absolute = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(absolute);
      else {
        const relative = path.relative(directory, absolute).split(path.sep).join('/');
        if (!RESERVED.has(relative)) files.set(relative, await readFile(absolute, 'utf8'));
      }
    }
  };
  await walk(directory);
  let fixture: FixtureContext = {};
  try {
    fixture = JSON.parse(await readFile(path.join(directory, 'context.json'), 'utf8')) as FixtureContext;
  } catch {
    // no context.json: a push to main
  }
  const projects = fixture.projects ?? {};
  const parentArtifacts = fixture.parentArtifacts;
  const comparisons = fixture.comparisons;
  const context: CompileContext = {
    project: { id: 7, path: 'group/app', defaultBranch: 'main' },
    ref: fixture.ref ?? 'main',
    refType: fixture.refType ?? 'branch',
    refProtected: fixture.refProtected ?? false,
    sha: fixture.sha ?? '1234567890abcdef1234567890abcdef12345678',
    beforeSha: fixture.beforeSha,
    commitMessage: fixture.commitMessage ?? 'Update things',
    source: fixture.source ?? 'push',
    variables: fixture.variables ?? [],
    changedPaths: fixture.changedPaths ?? null,
    ignoreSkipCi: fixture.ignoreSkipCi,
    limits: fixture.limits,
    ...(fixture.server ? { server: fixture.server } : {}),
    ...(fixture.inputs ? { inputs: fixture.inputs } : {}),
    files: {
      readFile: async (file) => files.get(file) ?? null,
      listFiles: async () => [...files.keys()],
      readProjectFile: async (project, _ref, file): Promise<ProjectFileResult> => {
        const projectFiles = projects[project];
        if (!projectFiles) return { status: 'project-not-found' };
        const content = projectFiles[file];
        return content === undefined ? { status: 'file-not-found' } : { status: 'found', content };
      },
      ...(comparisons
        ? { changedPathsSince: async (ref: string, limit: number) => comparisons[ref]?.slice(0, limit) ?? null }
        : {}),
      ...(parentArtifacts
        ? {
            readArtifactFile: async (job: string, file: string): Promise<ArtifactFileResult> => {
              const archive = parentArtifacts[job];
              if (!archive) return { status: 'job-not-found' };
              const content = archive[file];
              if (content === undefined) return { status: 'file-not-found' };
              return content === null ? { status: 'not-a-file' } : { status: 'found', content };
            },
          }
        : {}),
    },
  };
  return { text: files.get('.gitlab-ci.yml') ?? '', context };
}

type Summary = Record<string, unknown>;

export function summarize(result: CompileResult): Summary {
  const summary: Summary = { status: result.status };
  if (result.reason) summary.reason = result.reason;
  if (result.status === 'created') summary.stages = result.stages.map((stage) => stage.name);
  if (result.jobs.length > 0) summary.jobs = result.jobs.map(summarizeJob);
  if (result.excludedJobs.length > 0) summary.excluded = result.excludedJobs.map((job) => job.name);
  if (result.errors.length > 0) {
    summary.errors = result.errors.map((error) => ({ message: error.message, file: error.file, line: error.line }));
  }
  if (result.warnings.length > 0) summary.warnings = result.warnings.map((warning) => warning.message);
  const metadata = result.metadata;
  if (metadata && (metadata.name !== null || metadata.autoCancelOnNewCommit !== 'conservative' || metadata.autoCancelOnJobFailure !== 'none')) summary.metadata = metadata;
  return summary;
}

/** Name, stage, when, allow_failure and script (or a bridge's trigger) always; other fields only when not the default. */
function summarizeJob(job: JobDefinition): Summary {
  const summary: Summary = { name: job.name, stage: job.stage, when: job.when, allowFailure: job.allowFailure };
  if (job.trigger) summary.trigger = job.trigger;
  else summary.script = job.script;
  const optional: [keyof JobDefinition, unknown][] = [
    ['startIn', null], ['needs', null], ['dependencies', null], ['retry', { max: 0, when: ['always'] }],
    ['timeout', null], ['interruptible', false], ['resourceGroup', null], ['tags', []], ['image', null],
    ['services', []], ['beforeScript', []], ['afterScript', []], ['variables', []], ['cache', []],
    ['artifacts', null], ['environment', null], ['coverage', null], ['parallel', null], ['allowFailureExitCodes', null], ['hooks', undefined], ['release', undefined], ['idTokens', undefined], ['crossPipelineNeeds', undefined],
  ];
  for (const [key, fallback] of optional) {
    if (JSON.stringify(job[key]) !== JSON.stringify(fallback)) summary[key] = job[key];
  }
  if (job.baseName !== job.name) summary.baseName = job.baseName;
  return summary;
}

/** A push to `main` of group/app at a fixed commit, reading files through `files`; `overrides` win. */
export function pushContext(files: RepositoryReader, overrides: Partial<CompileContext> = {}): CompileContext {
  return {
    project: { id: 7, path: 'group/app', defaultBranch: 'main' },
    ref: 'main',
    refType: 'branch',
    refProtected: false,
    sha: '1234567890abcdef1234567890abcdef12345678',
    source: 'push',
    variables: [],
    files,
    ...overrides,
  };
}
