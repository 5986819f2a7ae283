/**
 * One job's docker environment: a build volume at /builds, a never-started "holder"
 * container through which files move (putArchive/getArchive, so a remote daemon works),
 * one fresh container per script stage (its script piped to stdin, as gitlab-runner does),
 * the services, and the per-job network.
 */
import type Docker from 'dockerode';
import path from 'node:path';
import { PassThrough, Writable, type Duplex, type Readable } from 'node:stream';
import tar from 'tar-stream';
import { safeRelativeName, symlinkStaysInside } from '../../shared/safe-path.ts';
import { pump, renamedHeader, stripFirstComponent, UnsafeArchiveEntryError } from '../tar.ts';
import { ExecutorError, type Environment, type EnvironmentInfo, type InteractiveShellRequest, type RunRequest, type RunResult, type ScriptShell } from '../types.ts';
import { ignoreMissing, LABEL_JOB, LABEL_MANAGED, LABEL_OWNER, LABEL_RUNNER, ownerId, resourceLabels } from './labels.ts';
import { execInteractive, shellEnvironment } from './shell.ts';
import { StageOutputReader, statusToken, statusTrap } from './stage-output.ts';

export interface StageContainerSpec {
  image: string;
  entrypoint: string[] | undefined;
  /** The job's variables (`KEY=value`), in every stage container's environment, as gitlab-runner sets them. */
  env: string[];
  /** `image:docker:user`: the user the job's script containers run as (the image's own when null). */
  user: string | null;
  hostname: string;
  binds: string[];
  hostConfig: Docker.HostConfig;
  /** The network containers are created on (one only: API 1.41 rejects two at creation). */
  network: string | null;
  /** Further networks, connected after creation and before start. */
  extraNetworks: string[];
  /**
   * The stage image runs no entrypoint (neither its own nor the job's): the shell reading the
   * script is the container's process, so the status it prints is the container's exit code.
   */
  runsShellDirectly: boolean;
}

export interface DockerEnvironmentParts {
  docker: Docker;
  info: EnvironmentInfo;
  jobId: number;
  shortToken: string;
  namePrefix: string;
  /** Still being created when the environment is handed out: only file transfers need it. */
  holder: Promise<Docker.Container>;
  stage: StageContainerSpec;
  /** Everything created so far, removed by cleanup in reverse order. */
  created: { containers: string[]; networks: string[]; volumes: string[] };
  /** EXECUTOR_JOB_SECTION_ATTEMPTS: runs of a stage whose container was removed under it (default 1). */
  sectionAttempts?: number;
  /** The job log's runner lines (the retry notices). */
  log?: (line: string, level?: 'info' | 'warning' | 'error') => void;
}

/** A stage's container that the daemon no longer knows (removed from outside while it ran). */
class ContainerGone extends ExecutorError {
  constructor(readonly containerId: string, options?: ErrorOptions) {
    super(`docker: container "${containerId}" not found or removed`, 'system', options);
  }
}

interface StartedContainer {
  container: Docker.Container;
  /** The hijacked attach connection: stdin in, multiplexed stdout and stderr out. */
  output: Duplex;
  /** Its script's shell prints its exit status last (stage-output.ts): the token it prints. */
  statusToken: string | null;
}

/** A failed script's container, kept for `openShell`, and when the daemon has it stopped. */
interface FailedStage {
  container: Docker.Container;
  stopped: Promise<unknown>;
}

/** Starts bash when the image has it, else sh (gitlab-runner's BashDetectShellScript). */
export function detectShellScript(shell: ScriptShell): string {
  const candidates = [
    ...(shell === 'bash' ? ['/usr/local/bin/bash', '/usr/bin/bash', '/bin/bash'] : []),
    '/usr/local/bin/sh',
    '/usr/bin/sh',
    '/bin/sh',
    '/busybox/sh',
  ];
  const branches = candidates.map((candidate, index) => `${index === 0 ? 'if' : 'elif'} [ -x ${candidate} ]; then\n\texec ${candidate} "$@"\n`);
  return `${branches.join('')}else\n\techo shell not found\n\texit 1\nfi\n`;
}

export class DockerEnvironment implements Environment {
  readonly info: EnvironmentInfo;
  private stageCount = 0;
  private cleaned = false;
  private readonly removals = new Set<Promise<void>>();
  private prestarted: { shell: ScriptShell; started: Promise<StartedContainer> } | null = null;
  /** The container of the last job script that failed, kept (stopped) until cleanup for `openShell`. */
  private failedStage: FailedStage | null = null;
  /** Destinations copied into: their directories are made (a later copy leaves their modes alone). */
  private readonly madeDirectories = new Set<string>();

  constructor(private readonly parts: DockerEnvironmentParts) {
    this.info = parts.info;
  }

  /** The network the job's containers are created on. */
  get network(): string | null {
    return this.parts.stage.network;
  }

  /**
   * A stage's script, run again in a new container while EXECUTOR_JOB_SECTION_ATTEMPTS lasts when
   * its container vanished under it, as gitlab-runner's docker executor retries `No such container`.
   */
  async run(request: RunRequest): Promise<RunResult> {
    const attempts = this.parts.sectionAttempts ?? 1;
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) this.parts.log?.(`Retrying ${request.stage}`);
      try {
        return await this.runOnce(request);
      } catch (error) {
        if (!(error instanceof ContainerGone) || request.signal.aborted) throw error;
        this.parts.log?.(`Container "${error.containerId}" not found or removed. Will retry...`, 'error');
        if (attempt >= attempts) {
          if (attempts > 1) this.parts.log?.('Execution attempts exceeded', 'error');
          throw error;
        }
      }
    }
  }

  private runOnce(request: RunRequest): Promise<RunResult> {
    const { stage } = this.parts;
    const prestarted = this.prestarted;
    if (prestarted && request.kind === 'user' && prestarted.shell === request.shell && !request.signal.aborted) {
      this.prestarted = null;
      return this.drive(
        prestarted.started.catch(() => this.startContainer(stage.image, stage.entrypoint, request.kind, request.shell, request.stage)),
        request,
      );
    }
    return this.runWith(stage.image, stage.entrypoint, request);
  }

  /**
   * Starts the container of the next user script now (the script follows on its stdin when
   * `run` is called), so its start overlaps get_sources. Nothing runs in it before then: its
   * shell waits on stdin, and the build volume it shares receives the sources meanwhile.
   */
  prestart(shell: ScriptShell): void {
    if (this.prestarted || this.cleaned) return;
    const { image, entrypoint } = this.parts.stage;
    const started = this.startContainer(image, entrypoint, 'user', shell, 'build');
    // A failed prestart is not the job's failure: `run` then starts a container of its own.
    started.catch(() => undefined);
    this.prestarted = { shell, started };
  }

  /** Runs a script in a fresh container of `image` that shares the job's volumes and networks. */
  async runWith(image: string, entrypoint: string[] | undefined, request: RunRequest): Promise<RunResult> {
    if (request.signal.aborted) return { exitCode: 137 };
    return this.drive(this.startContainer(image, entrypoint, request.kind, request.shell, request.stage), request);
  }

  /** Creates, attaches and starts a stage container whose shell reads its script from stdin. */
  private async startContainer(image: string, entrypoint: string[] | undefined, kind: RunRequest['kind'], shell: ScriptShell, stageName: string): Promise<StartedContainer> {
    const { docker, stage } = this.parts;
    const reportsStatus = stage.runsShellDirectly && image === stage.image && entrypoint === stage.entrypoint;
    const name = `${this.parts.namePrefix}-${stageName.replace(/[^a-zA-Z0-9_.-]/g, '-')}-${++this.stageCount}`;
    const container = await docker.createContainer({
      name,
      Image: image,
      ...(entrypoint ? { Entrypoint: entrypoint } : {}),
      // The script comes on stdin, as gitlab-runner sends it: no file (and no archive upload) per stage.
      Cmd: ['sh', '-c', detectShellScript(shell)],
      Env: stage.env,
      ...(kind === 'user' && stage.user ? { User: stage.user } : {}),
      Hostname: stage.hostname,
      WorkingDir: this.info.projectDir,
      Labels: resourceLabels(kind === 'user' ? 'build' : 'probe', this.parts.jobId, this.parts.shortToken),
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      OpenStdin: true,
      StdinOnce: true,
      Tty: false,
      HostConfig: { ...stage.hostConfig, Binds: stage.binds, ...(stage.network ? { NetworkMode: stage.network } : {}) },
      ...(stage.network ? { NetworkingConfig: { EndpointsConfig: { [stage.network]: {} } } } : {}),
    });
    this.parts.created.containers.push(container.id);
    let attached: Duplex | undefined;
    try {
      const attaching = container.attach({ stream: true, hijack: true, stdin: true, stdout: true, stderr: true }) as Promise<unknown> as Promise<Duplex>;
      const settled = await Promise.allSettled([
        attaching,
        (async () => {
          for (const network of stage.extraNetworks) await docker.getNetwork(network).connect({ Container: container.id });
        })(),
      ]);
      if (settled[0].status === 'fulfilled') attached = settled[0].value;
      const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) throw failed.reason;
      if (!attached) throw new ExecutorError('docker: the attach answered no stream');
      await container.start();
      return { container, output: attached, statusToken: reportsStatus ? statusToken() : null };
    } catch (error) {
      this.release(container, attached);
      if (error instanceof ExecutorError) throw error;
      throw new ExecutorError(`docker: ${describe(error)}`, 'system', { cause: error });
    }
  }

  /**
   * Feeds the script to a started container and waits for it, its output demultiplexed to the
   * request. The status is the one its shell printed once the output has ended, else the
   * daemon's (its `wait`).
   */
  private async drive(starting: Promise<StartedContainer>, request: RunRequest): Promise<RunResult> {
    const { container, output, statusToken: token } = await starting;
    let failed = false;
    let stopped: Promise<unknown> = Promise.resolve();
    try {
      const reader = new StageOutputReader(token, request.onOutput);
      const drained = new Promise<void>((resolve) => {
        output.on('end', resolve);
        output.on('close', resolve);
        output.on('error', () => resolve());
      }).then(() => reader.end());
      output.on('data', (chunk: Buffer) => reader.push(chunk));
      const kill = (): void => {
        container.kill({ signal: 'SIGKILL' }).catch(() => undefined);
      };
      request.signal.addEventListener('abort', kill, { once: true });
      try {
        if (request.signal.aborted) {
          kill();
          return { exitCode: 137 };
        }
        // End of stdin ends the script (StdinOnce closes the container's stdin with it).
        output.end(`${token ? `${statusTrap(token)}\n` : ''}exec 2>&1\n${request.script}`);
        const waited = (container.wait() as Promise<{ StatusCode: number }>).then((result) => result.StatusCode);
        stopped = waited.catch(() => undefined);
        const fromDaemon = async (): Promise<number> => {
          const code = await waited;
          await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 2000))]);
          return code;
        };
        const printed = async (): Promise<number> => {
          await drained;
          return reader.status ?? (await waited);
        };
        const exitCode = await Promise.race([printed(), fromDaemon()]);
        if (exitCode !== 0 && (await vanished(container))) throw new ContainerGone(container.id);
        failed = exitCode !== 0 && request.kind === 'user' && request.stage.startsWith('step_');
        return { exitCode };
      } finally {
        request.signal.removeEventListener('abort', kill);
      }
    } catch (error) {
      if (error instanceof ExecutorError) throw error;
      if ((error as { statusCode?: number }).statusCode === 404) throw new ContainerGone(container.id, { cause: error });
      throw new ExecutorError(`docker: ${describe(error)}`, 'system', { cause: error });
    } finally {
      if (failed) this.keepFailed({ container, stopped }, output);
      else this.release(container, output);
    }
  }

  /** A failed script's container stays (its files, outside the build volume too) until cleanup removes it with the rest. */
  private keepFailed(failed: FailedStage, attached: Duplex): void {
    attached.destroy();
    if (this.failedStage) this.release(this.failedStage.container, undefined);
    this.failedStage = failed;
  }

  /**
   * `docker exec -it` into the failed script's container, started again (its shell waits on a
   * stdin nobody writes to, so it stays up), or, when no script failed (sources, artifacts),
   * into a new container of the job's image on its volumes and network. It is stopped
   * afterwards and removed by cleanup.
   */
  async openShell(request: InteractiveShellRequest): Promise<number> {
    const { docker, stage } = this.parts;
    let container: Docker.Container;
    let attached: Duplex | undefined;
    if (this.failedStage) {
      // Its status may have come before the daemon had it stopped: started again only then.
      await this.failedStage.stopped;
      container = this.failedStage.container;
      await container.start();
    } else ({ container, output: attached } = await this.startContainer(stage.image, stage.entrypoint, 'user', 'bash', 'shell'));
    try {
      const tmpDir = `${this.info.projectDir}.tmp`;
      const { env, files } = shellEnvironment(request.variables, tmpDir);
      if (files) await this.copyIn(files, tmpDir);
      const command = { cmd: ['sh', '-c', detectShellScript('bash'), 'sh'], env, workingDir: this.info.projectDir };
      return await execInteractive(docker, container, command, request);
    } catch (error) {
      throw new ExecutorError(`docker: cannot open a shell in the job's container: ${describe(error)}`, 'system', { cause: error });
    } finally {
      attached?.destroy();
      await container.kill({ signal: 'SIGKILL' }).catch(() => undefined);
    }
  }

  /** Closes the attach connection (left open, it would keep the process alive) and removes the container in the background; cleanup waits for it. */
  private release(container: Docker.Container, attached: Duplex | undefined): void {
    attached?.destroy();
    this.removals.add(
      container
        .remove({ force: true })
        .then(() => void (this.parts.created.containers = this.parts.created.containers.filter((id) => id !== container.id)))
        .catch(() => undefined),
    );
  }

  async copyIn(source: Readable, directory: string): Promise<void> {
    const holder = await this.parts.holder.catch((error: unknown) => {
      source.destroy();
      throw new ExecutorError(`docker: cannot copy files into ${directory}: ${describe(error)}`, 'system', { cause: error });
    });
    const prefix = path.posix.normalize(directory).replace(/^\/+/, '').replace(/\/+$/, '');
    const entries = prefixEntries(source, prefix, !this.madeDirectories.has(prefix));
    let refused: Error | null = null;
    entries.on('error', (error) => (refused = error));
    try {
      await holder.putArchive(entries as unknown as NodeJS.ReadableStream, { path: '/' });
      if (refused) throw refused;
      this.madeDirectories.add(prefix);
    } catch (error) {
      if (refused) throw refused;
      throw new ExecutorError(`docker: cannot copy files into ${directory}: ${describe(error)}`, 'system', { cause: error });
    }
  }

  async copyOut(directory: string): Promise<Readable | null> {
    try {
      const stream = (await (await this.parts.holder).getArchive({ path: directory })) as Readable;
      return stripFirstComponent(stream);
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return null;
      throw new ExecutorError(`docker: cannot copy files out of ${directory}: ${describe(error)}`, 'system', { cause: error });
    }
  }

  async cleanup(): Promise<void> {
    if (this.cleaned) return;
    this.cleaned = true;
    const prestarted = this.prestarted;
    this.prestarted = null;
    if (prestarted) await prestarted.started.then(({ container, output }) => this.release(container, output)).catch(() => undefined);
    // Settled before the removal, so that no holder is made after it.
    await this.parts.holder.catch(() => undefined);
    await Promise.all(this.removals);
    await removeJobResources(this.parts.docker, this.parts.jobId, this.parts.shortToken, this.parts.created);
  }
}

/**
 * Removes a job's containers, networks and volumes: the recorded ones, and any other this
 * process labelled for the job of this runner (a create that answered after an abort, for
 * example). The runner's token is part of the filter: two runners of one process (two
 * `runner exec` runs, each with its own coordinator) both have a job 1.
 */
export async function removeJobResources(docker: Docker, jobId: number, shortToken: string, created: DockerEnvironmentParts['created']): Promise<void> {
  const filters = JSON.stringify({ label: [`${LABEL_MANAGED}=true`, `${LABEL_OWNER}=${ownerId()}`, `${LABEL_RUNNER}=${shortToken}`, `${LABEL_JOB}=${jobId}`] });
  const labelled = await docker.listContainers({ all: true, filters }).catch(() => []);
  const containers = new Set([...created.containers, ...labelled.map((info) => info.Id)]);
  await Promise.all([...containers].map((id) => docker.getContainer(id).remove({ force: true, v: false }).catch(ignoreMissing).catch(() => undefined)));
  const networks = await docker.listNetworks({ filters }).catch(() => []);
  for (const id of new Set([...created.networks, ...networks.map((info) => info.Id)])) {
    await docker.getNetwork(id).remove().catch(ignoreMissing).catch(() => undefined);
  }
  const volumes = (await docker.listVolumes({ filters }).catch(() => ({ Volumes: [] }))).Volumes ?? [];
  for (const name of new Set([...created.volumes, ...volumes.filter((info) => info.Labels?.['com.gantry.runner.kind'] !== 'cache-volume').map((info) => info.Name)])) {
    await docker.getVolume(name).remove().catch(ignoreMissing).catch(() => undefined);
  }
}

/**
 * The entries of `source` below `prefix/`, for a putArchive at `/`; with `leading`, the
 * directories to it too. Those below the top one (a mount point: `/builds`) take the mode the
 * archive gives its root, as `mkdir -p` would make them under the same umask; else 755. (The
 * engine chmods an existing directory an entry names: a later copy names none, so that the
 * project directory the sources made 777 stays so through cache and artifacts.)
 */
function prefixEntries(source: Readable, prefix: string, leading: boolean): Readable {
  const extract = tar.extract();
  const pack = tar.pack();
  let leadingMade = !leading;
  const makeLeading = (mode: number): void => {
    if (leadingMade) return;
    leadingMade = true;
    const parts = prefix.split('/').filter(Boolean);
    parts.forEach((_, index) => pack.entry({ name: `${parts.slice(0, index + 1).join('/')}/`, type: 'directory', mode: index === 0 ? 0o755 : mode }));
  };
  // Links of this archive that point out of the destination: kept as links (a virtualenv's
  // bin/python → /usr/bin/python3, as gitlab-runner keeps them), but nothing is written through one.
  const leavingLinks = new Set<string>();
  (async () => {
    for await (const entry of extract) {
      const name = safeRelativeName(entry.header.name);
      if (name === null) {
        entry.resume();
        throw new UnsafeArchiveEntryError(entry.header.name, 'the path leaves the destination');
      }
      if (throughLink(name, leavingLinks)) {
        entry.resume();
        throw new UnsafeArchiveEntryError(entry.header.name, 'a parent directory is a symlink that leaves the destination');
      }
      if (entry.header.type === 'symlink' && !symlinkStaysInside(name, entry.header.linkname ?? '')) leavingLinks.add(name);
      if (name === '') {
        // The destination itself: its mode, when the archive gives one.
        if (prefix && entry.header.type === 'directory') {
          makeLeading(entry.header.mode ?? 0o755);
          pack.entry(renamedHeader(entry.header, `${prefix}/`));
        }
        entry.resume();
        continue;
      }
      makeLeading(0o755);
      if (entry.header.type === 'link' && safeRelativeName(entry.header.linkname ?? '') === null) {
        entry.resume();
        throw new UnsafeArchiveEntryError(entry.header.name, 'the hard link target leaves the destination');
      }
      const linkname = entry.header.type === 'link' && entry.header.linkname && prefix ? `${prefix}/${entry.header.linkname}` : undefined;
      await pump(entry, pack.entry(renamedHeader(entry.header, prefix ? `${prefix}/${name}` : name, linkname)));
    }
    makeLeading(0o755);
    pack.finalize();
  })().catch((error: unknown) => pack.destroy(error instanceof Error ? error : new Error(String(error))));
  source.on('error', (error) => pack.destroy(error));
  source.pipe(extract as unknown as Writable);
  const out = new PassThrough();
  pack.pipe(out);
  pack.on('error', (error: Error) => out.destroy(error));
  return out;
}

/** Whether a parent directory of `name` is one of `links`. */
function throughLink(name: string, links: ReadonlySet<string>): boolean {
  if (links.size === 0) return false;
  for (let slash = name.indexOf('/'); slash > 0; slash = name.indexOf('/', slash + 1)) {
    if (links.has(name.slice(0, slash))) return true;
  }
  return false;
}

export function describe(error: unknown): string {
  const json = (error as { json?: { message?: string } }).json;
  if (json?.message) return json.message;
  return error instanceof Error ? error.message : String(error);
}

/** Whether the daemon no longer knows the container, or is removing it (a `docker rm -f` kills it first). */
function vanished(container: Docker.Container): Promise<boolean> {
  return container.inspect().then(
    (info) => info.State.Status === 'removing',
    (error: unknown) => (error as { statusCode?: number }).statusCode === 404,
  );
}
