/**
 * A job payload as a real GitLab sends it (reference §3.4, §3.5) into the protocol type:
 * like gitlab-runner's decoder, missing fields become their zero values and unknown ones are
 * ignored, but a field of the wrong JSON type is an error (the job cannot run).
 */
import type { Artifact, Cache, Dependency, ExecutorOptions, JobPayload, JobVariable, Port, Service, Step } from '../../protocol/job-payload.ts';

export class PayloadError extends Error {
  constructor(
    message: string,
    readonly id: number | null,
    readonly token: string | null,
  ) {
    super(message);
    this.name = 'PayloadError';
  }
}

type Json = Record<string, unknown>;

class Reader {
  constructor(
    private readonly fail: (message: string) => never,
    private readonly at: string,
    private readonly value: Json,
  ) {}

  static object(fail: (message: string) => never, at: string, value: unknown): Reader {
    if (value === undefined || value === null) return new Reader(fail, at, {});
    if (typeof value !== 'object' || Array.isArray(value)) fail(`${at} must be an object`);
    return new Reader(fail, at, value as Json);
  }

  private field(key: string): unknown {
    return this.value[key];
  }

  string(key: string): string {
    const value = this.field(key);
    if (value === undefined || value === null) return '';
    if (typeof value !== 'string') this.fail(`${this.at}.${key} must be a string`);
    return value;
  }

  optionalString(key: string): string | null {
    const value = this.field(key);
    return value === undefined || value === null ? null : this.string(key);
  }

  number(key: string): number {
    const value = this.field(key);
    if (value === undefined || value === null) return 0;
    if (typeof value !== 'number' || !Number.isFinite(value)) this.fail(`${this.at}.${key} must be a number`);
    return value;
  }

  boolean(key: string): boolean {
    const value = this.field(key);
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') this.fail(`${this.at}.${key} must be a boolean`);
    return value;
  }

  strings(key: string): string[] {
    const value = this.field(key);
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) this.fail(`${this.at}.${key} must be an array of strings`);
    return value as string[];
  }

  optionalStrings(key: string): string[] | null {
    const value = this.field(key);
    return value === undefined || value === null ? null : this.strings(key);
  }

  object(key: string): Reader {
    return Reader.object(this.fail, `${this.at}.${key}`, this.field(key));
  }

  has(key: string): boolean {
    return this.field(key) !== undefined && this.field(key) !== null;
  }

  list<T>(key: string, read: (item: Reader) => T): T[] {
    const value = this.field(key);
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) this.fail(`${this.at}.${key} must be an array`);
    return value.map((item, index) => read(Reader.object(this.fail, `${this.at}.${key}[${index}]`, item)));
  }
}

const oneOf = <T extends string>(value: string, allowed: readonly T[], fallback: T): T => ((allowed as readonly string[]).includes(value) ? (value as T) : fallback);

export function decodeJobPayload(input: unknown): JobPayload {
  const raw = (typeof input === 'object' && input !== null ? input : {}) as Json;
  const id = typeof raw.id === 'number' ? raw.id : null;
  const token = typeof raw.token === 'string' ? raw.token : null;
  const fail = (message: string): never => {
    throw new PayloadError(`invalid job payload: ${message}`, id, token);
  };
  const root = Reader.object(fail, 'job', input);
  if (id === null) fail('job.id must be a number');
  // `executor_opts.docker.user` of an image or service (GitLab 16.8), when it names one.
  const executorOptions = (item: Reader): { executor_opts?: ExecutorOptions } => {
    const user = item.object('executor_opts').object('docker').optionalString('user');
    return user ? { executor_opts: { docker: { user } } } : {};
  };
  // `pull_policy` of an image or service (GitLab 15.1), when the job names one.
  const pullPolicy = (item: Reader): { pull_policy?: string[] } => (item.has('pull_policy') ? { pull_policy: item.strings('pull_policy') } : {});
  const ports = (item: Reader): Port[] => item.list('ports', (port) => ({ number: port.number('number'), protocol: port.string('protocol') || undefined, name: port.string('name') || undefined }));
  const jobInfo = root.object('job_info');
  const git = root.object('git_info');
  const runnerInfo = root.object('runner_info');
  const image = root.has('image') ? root.object('image') : null;
  const features = root.object('features');
  return {
    id: root.number('id'),
    token: root.string('token'),
    allow_git_fetch: root.boolean('allow_git_fetch'),
    job_info: { name: jobInfo.string('name'), stage: jobInfo.string('stage'), project_id: jobInfo.number('project_id'), project_name: jobInfo.string('project_name') },
    git_info: {
      repo_url: git.string('repo_url'),
      ref: git.string('ref'),
      sha: git.string('sha'),
      before_sha: git.string('before_sha'),
      ref_type: oneOf(git.string('ref_type'), ['branch', 'tag'] as const, 'branch'),
      refspecs: git.strings('refspecs'),
      depth: git.number('depth'),
    },
    runner_info: { timeout: runnerInfo.number('timeout'), runner_session_url: runnerInfo.optionalString('runner_session_url') },
    variables: root.list('variables', (item): JobVariable => ({
      key: item.string('key'),
      value: item.string('value'),
      public: item.boolean('public'),
      masked: item.boolean('masked'),
      ...(item.boolean('file') ? { file: true as const } : {}),
      ...(item.boolean('raw') ? { raw: true as const } : {}),
    })),
    steps: root.list('steps', (item): Step => ({
      name: item.string('name') as Step['name'],
      script: item.strings('script'),
      timeout: item.number('timeout'),
      when: oneOf(item.string('when'), ['on_success', 'on_failure', 'always'] as const, 'on_success'),
      allow_failure: item.boolean('allow_failure'),
    })),
    image: image && image.string('name') !== '' ? { name: image.string('name'), entrypoint: image.optionalStrings('entrypoint'), ports: ports(image), ...executorOptions(image), ...pullPolicy(image) } : null,
    services: root.list('services', (item): Service => ({
      name: item.string('name'),
      entrypoint: item.optionalStrings('entrypoint'),
      ports: ports(item),
      alias: item.optionalString('alias'),
      command: item.optionalStrings('command'),
      ...(item.has('variables') ? { variables: item.list('variables', (variable) => ({ key: variable.string('key'), value: variable.string('value') })) } : {}),
      ...executorOptions(item),
      ...pullPolicy(item),
    })),
    artifacts: root.list('artifacts', (item): Artifact => ({
      name: item.string('name'),
      untracked: item.boolean('untracked'),
      paths: item.strings('paths'),
      ...(item.has('exclude') ? { exclude: item.strings('exclude') } : {}),
      when: oneOf(item.string('when'), ['on_success', 'on_failure', 'always'] as const, 'on_success'),
      expire_in: item.optionalString('expire_in'),
      artifact_type: item.string('artifact_type') || 'archive',
      artifact_format: oneOf(item.string('artifact_format'), ['zip', 'gzip', 'raw'] as const, 'zip'),
    })),
    cache: root.list('cache', (item): Cache => ({
      key: item.string('key'),
      untracked: item.boolean('untracked'),
      paths: item.strings('paths'),
      // As written, a `$VARIABLE` too: the job expands it (cache.ts). None (GitLab 9) is pull-push.
      policy: item.string('policy') || 'pull-push',
      when: oneOf(item.string('when'), ['on_success', 'on_failure', 'always'] as const, 'on_success'),
      ...(item.has('fallback_keys') ? { fallback_keys: item.strings('fallback_keys') } : {}),
    })),
    credentials: root.list('credentials', (item) => ({ type: 'registry' as const, url: item.string('url'), username: item.string('username'), password: item.string('password'), kind: item.string('type') }))
      .filter((credential) => credential.kind === 'registry')
      .map(({ kind: _kind, ...credential }) => credential),
    dependencies: root.list('dependencies', (item): Dependency => {
      const file = item.has('artifacts_file') ? item.object('artifacts_file') : null;
      return { id: item.number('id'), name: item.string('name'), token: item.string('token'), ...(file ? { artifacts_file: { filename: file.string('filename'), size: file.number('size') } } : {}) };
    }),
    features: { trace_sections: features.boolean('trace_sections'), ...(features.has('failure_reasons') ? { failure_reasons: features.strings('failure_reasons') } : {}) },
    ...(root.has('hooks') ? { hooks: root.list('hooks', (item) => ({ name: item.string('name'), script: item.strings('script') })) } : {}),
  };
}
