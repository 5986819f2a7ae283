import { stringify } from 'yaml';
import type { CompileResult, IncludedFile, JobDefinition, RepositoryReader } from '../../../../ci/model.ts';
import { accessDenied, GantryError } from '../../../../shared/errors.ts';
import type { UserRecord } from '../../../../storage/types.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Permissions } from '../../access/permissions.ts';
import { DEFAULT_CI_CONFIG_PATH, type PipelineCreation } from './creation.ts';
import { readTextAt } from './git-reader.ts';
import type { RemoteIncludes } from './remote-includes.ts';

/** What lint answers: GitLab's `valid`/`status`, messages, the merged configuration and (dry run) the jobs. */
export interface LintOutcome {
  valid: boolean;
  errors: string[];
  warnings: string[];
  /** YAML of the configuration after includes and `extends`; null when invalid. */
  mergedYaml: string | null;
  /** Present for dry runs and `include_jobs`. */
  jobs?: JobDefinition[];
  /** The files the configuration included, read in the project at `sha` (project lints). */
  includes: IncludedFile[];
  /** Where the configuration was read: the project's path and the commit (zeros without one). */
  source?: { projectPath: string; sha: string };
}

export interface ProjectLintInput {
  /** The text to check; absent: the project's CI file at `ref`. */
  content?: string;
  dryRun: boolean;
  includeJobs: boolean;
  /** Branch or tag (default: the project's default branch). */
  ref?: string;
}

export interface CiLintDeps {
  creation: Pick<PipelineCreation, 'prepare' | 'resolve' | 'compile' | 'fullPath'>;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canLintProjectConfig' | 'canCreatePipeline'>;
  /** Fetches `include:remote` files, as pipeline creation does; without it they are refused. */
  remoteIncludes?: Pick<RemoteIncludes, 'forCompile'>;
}

/** `POST /ci/lint` and `/projects/:id/ci/lint`, through the compiler pipelines use. */
export class CiLint {
  constructor(private readonly deps: CiLintDeps) {}

  /** A configuration on its own: no repository, so local includes are not found. */
  async lintContent(content: string): Promise<LintOutcome> {
    const result = await this.deps.creation.compile(content, {
      project: { id: 0, path: 'lint/project' },
      ref: 'main',
      refType: 'branch',
      sha: '0'.repeat(40),
      source: 'push',
      files: this.withRemote({ readFile: async () => null }),
      ignoreSkipCi: true,
    });
    return outcome(result, false);
  }

  private withRemote(reader: RepositoryReader): RepositoryReader {
    const remote = this.deps.remoteIncludes?.forCompile();
    return remote ? { ...reader, readRemoteFile: remote } : reader;
  }

  async lintProject(projectRef: string, actor: UserRecord, input: ProjectLintInput): Promise<LintOutcome> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canLintProjectConfig(project, actor))) throw accessDenied();
    const ref = input.ref ?? project.default_branch ?? 'main';
    if (input.dryRun && !(await this.deps.permissions.canCreatePipeline(project, actor))) return refusal('Insufficient permissions to create a new pipeline');
    try {
      const content = input.content ?? (await this.fileAt(project, ref));
      if (!input.dryRun) {
        const target = await this.deps.creation.resolve(project, ref).catch(unlessRefMissing);
        const projectPath = await this.deps.creation.fullPath(project);
        const result = await this.deps.creation.compile(content, {
          project: { id: project.id, path: projectPath, defaultBranch: project.default_branch ?? undefined },
          ref, refType: target?.refType ?? 'branch', sha: target?.sha ?? '0'.repeat(40), source: 'push', ignoreSkipCi: true,
          files: this.withRemote(target ? { readFile: (path) => readTextAt(target.repository, target.sha, path) } : { readFile: async () => null }),
          configPath: project.ci_config_path || DEFAULT_CI_CONFIG_PATH,
        });
        return { ...outcome(result, input.includeJobs), source: { projectPath, sha: target?.sha ?? '0'.repeat(40) } };
      }
      const prepared = await this.deps.creation.prepare({ project, ref, source: 'push', user: actor, saveOnErrors: false, ignoreSkipCi: true });
      const result = input.content === undefined ? prepared.result : await this.deps.creation.compile(input.content, prepared.context);
      const report = { ...outcome(result, true), source: { projectPath: prepared.context.project.path, sha: prepared.target.sha } };
      return result.status === 'filtered' && result.reason ? { ...report, valid: false, errors: [result.reason] } : report;
    } catch (error) {
      if (error instanceof GantryError && error.details.fields?.base) return refusal(error.details.fields.base.join(', '));
      throw error;
    }
  }

  private async fileAt(project: Parameters<PipelineCreation['resolve']>[0], ref: string): Promise<string> {
    const target = await this.deps.creation.resolve(project, ref);
    const path = project.ci_config_path || DEFAULT_CI_CONFIG_PATH;
    const text = await readTextAt(target.repository, target.sha, path);
    if (text === null) throw new GantryError('GANTRY_E_CI_CONFIG_MISSING', `Missing ${path} file`, { fields: { base: [`Missing ${path} file`] } });
    return text;
  }
}

/** Laid out as GitLab's Ruby dump writes it (`---` first, list items level with their key), so clients comparing text see the same. */
const RUBY_YAML_LAYOUT = { directives: true, indentSeq: false } as const;

function outcome(result: CompileResult, withJobs: boolean): LintOutcome {
  const valid = result.status !== 'invalid';
  return {
    valid,
    errors: result.errors.map((error) => error.message),
    warnings: result.warnings.map((warning) => warning.message),
    mergedYaml: valid && result.mergedConfig ? stringify(result.mergedConfig, RUBY_YAML_LAYOUT) : null,
    ...(withJobs ? { jobs: result.jobs } : {}),
    includes: valid ? (result.includes ?? []) : [],
  };
}

/** A ref or commit that does not exist: the content is linted without a repository. Any other failure stays one. */
function unlessRefMissing(error: unknown): null {
  if (error instanceof GantryError && (error.code === 'GANTRY_E_REF_NOT_FOUND' || error.code === 'GANTRY_E_COMMIT_NOT_FOUND')) return null;
  throw error;
}

function refusal(message: string): LintOutcome {
  return { valid: false, errors: [message], warnings: [], mergedYaml: null, includes: [] };
}
