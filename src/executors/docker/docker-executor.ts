/**
 * The docker executor (reference §8.5): the job image per pull_policy, a per-job network
 * with the services under their aliases (the default bridge for a job without services), a build volume at /builds, files moved with
 * putArchive/getArchive, one container per script stage (the script on its stdin), everything labelled and removed
 * at cleanup (and by the sweep after a crash).
 */
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import Docker from 'dockerode';
import { ExecutorError, type Environment, type Executor, type ExecutorFeatures, type PrepareRequest } from '../types.ts';
import { DockerEnvironment, describe, removeJobResources, type DockerEnvironmentParts } from './environment.ts';
import { resourceLabels, sweepOrphans } from './labels.ts';
import { effectivePullPolicies, ensureImage, isAllowed } from './pull.ts';
import { followServiceLogs, probeScript, serviceAddress, serviceLogs, startService, waitForTcp, type StartedService } from './services.ts';
import { checkedDockerOptions, DOCKER_FEATURES, parseCpus, parseMemory, type DockerSettings } from './settings.ts';
import { projectDirFor } from '../clone-path.ts';

const SPECIAL_NETWORK_MODES = new Set(['host', 'none', 'bridge', 'default']);

export class DockerExecutor implements Executor {
  readonly name = 'docker' as const;
  readonly features: ExecutorFeatures = { ...DOCKER_FEATURES };
  /** The engine client (it connects on its first call). */
  readonly engine: Docker;
  /** The daemon runs on this machine (unix socket): its container addresses are reachable from here. */
  private readonly local: boolean;

  constructor(
    private readonly settings: DockerSettings,
    docker?: Docker,
    /** Probe service ports from this machine (default: when the daemon is local) or from a container on the job network. */
    options: { probeFromHost?: boolean } = {},
  ) {
    const clientOptions = checkedDockerOptions(settings);
    this.engine = docker ?? new Docker(clientOptions);
    const host = settings.host ?? process.env.DOCKER_HOST ?? '';
    this.local = options.probeFromHost ?? (host === '' || host.startsWith('unix://'));
  }

  async sweep(): Promise<number> {
    return sweepOrphans(this.engine);
  }

  async prepare(request: PrepareRequest): Promise<Environment> {
    const { settings } = this;
    const docker = this.engine;
    const log = request.log;
    const projectDir = projectDirFor(request, '/builds', `/builds/${request.projectPath}`, true);
    // Image and service names as GitLab sends them, `$VARIABLES` and all: the runner expands them.
    const expand = (value: string): string => request.expand?.(value, { buildsDir: '/builds', projectDir }) ?? value;
    const named = request.image?.name ? expand(request.image.name) : '';
    const imageName = named || (settings.image ? expand(settings.image) : '');
    if (!imageName) throw new ExecutorError('the job names no image and [runners.docker] image is not set', 'image');
    log(`Using Docker executor with image ${imageName} ...`);
    checkAllowed(imageName, settings.allowedImages ?? [], 'images');
    // Names and aliases expanded, as gitlab-runner does before it starts them. A service named by
    // a variable that is not set names no image: gitlab-runner starts none, and fails one with an alias.
    const expanded = request.services.map((service) => ({ ...service, name: expand(service.name), alias: service.alias ? expand(service.alias) : service.alias }));
    const unnamed = expanded.find((service) => service.name.trim() === '' && service.alias?.trim());
    if (unnamed) throw new ExecutorError(`invalid service image name: ${unnamed.name}`, 'image');
    const services = expanded.filter((service) => service.name.trim() !== '');
    for (const service of services) checkAllowed(service.name, settings.allowedServices ?? [], 'services');
    // Each image's policies (its job's `pull_policy`, else the runner's), checked before anything is made.
    const imagePolicies = effectivePullPolicies(imageName, request.image?.name ? request.image.pull_policy : null, settings);
    const servicePolicies = services.map((service) => effectivePullPolicies(service.name, service.pull_policy, settings));

    const suffix = randomBytes(4).toString('hex');
    const hostname = `runner-${request.shortToken}-project-${request.projectId}-concurrent-${request.concurrentId}`;
    const namePrefix = `${hostname}-job-${request.jobId}-${suffix}`;
    const created: DockerEnvironmentParts['created'] = { containers: [], networks: [], volumes: [] };
    const labels = (kind: Parameters<typeof resourceLabels>[0]) => resourceLabels(kind, request.jobId, request.shortToken);
    const abortable = (): void => {
      if (request.signal.aborted) throw new ExecutorError('the job was aborted while its environment was prepared');
    };
    let holder: Promise<Docker.Container> | undefined;

    try {
      const buildVolume = `${namePrefix}-builds`;
      const mode = settings.networkMode?.trim() || undefined;
      // gitlab-runner's default is the default bridge (services as legacy links); a network of
      // the job's own is made only when services want to be reached by alias.
      const ownNetwork = (services.length > 0 && mode === undefined) || (mode !== undefined && !(SPECIAL_NETWORK_MODES.has(mode) || mode.startsWith('container:')));
      const network: string | null = ownNetwork ? `${namePrefix}-network` : mode === undefined || mode === 'default' ? 'bridge' : mode;
      const extraNetworks: string[] = ownNetwork && mode ? [mode] : [];
      const helperImage = settings.helperImage || imageName;
      // The job's images: with no service, checked meanwhile (with services, after them, as gitlab-runner logs it).
      const ensureJobImages = async (): Promise<Docker.ImageInspectInfo> => {
        const image = await ensureImage(docker, imageName, imagePolicies, request.credentials, log, settings);
        // A configured helper image follows the runner's policies, as gitlab-runner's helper_image does.
        if (helperImage !== imageName) await ensureImage(docker, helperImage, effectivePullPolicies(helperImage, null, settings), request.credentials, log, settings);
        return image;
      };
      // Independent daemon calls go out together; every one that succeeded is recorded for cleanup.
      const [configBinds, , , earlyImage] = await settledAll([
        this.configVolumes(request),
        docker.createVolume({ Name: buildVolume, Labels: labels('build-volume') }).then(() => void created.volumes.push(buildVolume)),
        ownNetwork && network ? docker.createNetwork({ Name: network, CheckDuplicate: true, Labels: labels('network') }).then((made) => void created.networks.push(made.id)) : undefined,
        services.length === 0 ? ensureJobImages() : undefined,
      ] as const);
      const binds = [`${buildVolume}:/builds`, ...configBinds];
      const hostConfig: Docker.HostConfig = {
        Privileged: settings.privileged ?? false,
        ...(settings.capAdd?.length ? { CapAdd: settings.capAdd } : {}),
        ...(settings.capDrop?.length ? { CapDrop: settings.capDrop } : {}),
        ...(settings.memory ? { Memory: parseMemory(settings.memory) } : {}),
        ...(settings.cpus ? { NanoCpus: parseCpus(settings.cpus) } : {}),
        ...(settings.dns?.length ? { Dns: settings.dns } : {}),
        ...(settings.extraHosts?.length ? { ExtraHosts: settings.extraHosts } : {}),
      };
      abortable();

      const started: StartedService[] = [];
      for (const [index, service] of services.entries()) {
        // The service's own variables after the job's public ones (the later of a name wins).
        const variables = { ...request.serviceVariables, ...Object.fromEntries((service.variables ?? []).map(({ key, value }) => [key, value])) };
        const serviceEnv = Object.entries(variables).map(([key, value]) => `${key}=${value}`);
        log(`Starting service ${service.name} ...`);
        const image = await ensureImage(docker, service.name, servicePolicies[index], request.credentials, log, settings);
        abortable();
        const running = await startService({ docker, service, index, image, namePrefix, jobId: request.jobId, shortToken: request.shortToken, network, binds, hostConfig, env: serviceEnv, created });
        started.push(running);
        if (request.debugServices) await followServiceLogs(docker, running, (line) => log(line), request.signal).catch((error: unknown) => log(`failed to open log stream for container ${service.name}: ${describe(error)}`, 'warning'));
      }
      if (started.length > 0 && network && SPECIAL_NETWORK_MODES.has(network) && network !== 'bridge') {
        log(`Services are not reachable by alias with network_mode "${network}"`, 'warning');
      }

      const jobImage = earlyImage ?? (await ensureJobImages());
      abortable();

      const links = network === 'bridge' ? started.flatMap((service) => service.aliases.map((alias) => `${service.containerId}:${alias}`)) : [];
      const stageHostConfig: Docker.HostConfig = { ...hostConfig, ...(links.length ? { Links: links } : {}) };
      // Off the job's path: the first script's container is created meanwhile, and only file transfers wait for it.
      holder = docker
        .createContainer({
          name: `${namePrefix}-holder`,
          Image: helperImage,
          Entrypoint: ['/bin/sh'],
          Cmd: ['-c', 'exit 0'],
          Labels: labels('holder'),
          HostConfig: { Binds: binds },
        })
        .then((made) => {
          created.containers.push(made.id);
          return made;
        });
      holder.catch(() => undefined); // its failure is seen where it is awaited
      const entrypoint = request.image?.entrypoint ?? undefined;

      const info = {
        buildsDir: '/builds',
        projectDir,
        hostProjectDir: null,
        runningOn: `${hostname} via ${os.hostname()}`,
        shared: false,
        image: imageName,
      };
      const environment = new DockerEnvironment({
        docker,
        info,
        jobId: request.jobId,
        shortToken: request.shortToken,
        namePrefix,
        holder,
        stage: { image: imageName, entrypoint, env: request.containerVariables?.(info) ?? [], user: request.image?.executor_opts?.docker?.user ?? null, hostname, binds, hostConfig: stageHostConfig, network, extraNetworks, runsShellDirectly: runsNoEntrypoint(entrypoint, jobImage) },
        created,
        sectionAttempts: request.sectionAttempts ?? 1,
        log,
      });
      await this.waitForServices(environment, started, helperImage, request);
      return environment;
    } catch (error) {
      await holder?.catch(() => undefined);
      await removeJobResources(docker, request.jobId, request.shortToken, created).catch(() => undefined);
      if (error instanceof ExecutorError) throw error;
      throw new ExecutorError(`docker: ${describe(error)}`, 'system', { cause: error });
    }
  }

  private async configVolumes(request: PrepareRequest): Promise<string[]> {
    const docker = this.engine;
    const binds: string[] = [];
    for (const volume of this.settings.volumes ?? []) {
      if (volume.includes(':')) {
        binds.push(volume);
        continue;
      }
      const hash = createHash('md5').update(volume).digest('hex');
      const name = `runner-${request.shortToken}-project-${request.projectId}-concurrent-${request.concurrentId}-cache-${hash}`;
      const exists = await docker.getVolume(name).inspect().then(() => true, () => false);
      if (!exists) await docker.createVolume({ Name: name, Labels: resourceLabels('cache-volume', null, request.shortToken) });
      binds.push(`${name}:${volume}`);
    }
    return binds;
  }

  private async waitForServices(environment: DockerEnvironment, started: StartedService[], probeImage: string, request: PrepareRequest): Promise<void> {
    const docker = this.engine;
    const timeout = this.settings.waitForServicesTimeout ?? 30;
    const waited = started.filter((service) => service.port !== null || service.healthCheckError !== undefined);
    if (timeout <= 0 || waited.length === 0) return;
    request.log(`Waiting for services to be up and running (timeout ${timeout} seconds)...`);
    for (const service of waited) {
      if (service.healthCheckError !== undefined) {
        await this.reportUnhealthy(service, service.healthCheckError, request);
        continue;
      }
      const port = service.port ?? 0;
      const chunks: Buffer[] = [];
      let answered: boolean;
      const address = this.local ? await serviceAddress(docker, service.containerId, environment.network).catch(() => null) : null;
      if (address) {
        answered = await waitForTcp(address, port, timeout, request.signal);
      } else {
        const result = await environment.runWith(probeImage, undefined, {
          stage: 'wait-for-service',
          kind: 'helper',
          // bash when the image has it (its /dev/tcp), else sh.
          shell: 'bash',
          script: probeScript(service.aliases[0], port, timeout),
          onOutput: (chunk) => chunks.push(chunk),
          signal: request.signal,
        });
        answered = result.exitCode === 0;
      }
      if (!answered) await this.reportUnhealthy(service, `port ${port} did not answer within ${timeout} s ${Buffer.concat(chunks).toString('utf8').trim()}`.trim(), request);
    }
  }

  private async reportUnhealthy(service: StartedService, error: string, request: PrepareRequest): Promise<void> {
    const logs = await serviceLogs(this.engine, service.containerId);
    // gitlab-runner's own words, `*** WARNING:` included: not a trace warning (it would say WARNING twice).
    request.log(`*** WARNING: Service ${service.name} probably didn't start properly.`);
    request.log(`Health check error: ${error}`);
    request.log(`Service container logs:\n${logs.trimEnd()}`);
  }
}

/** No entrypoint runs before the stage's shell: the job's is `[""]` (none), or it names none and neither does the image. */
function runsNoEntrypoint(jobEntrypoint: string[] | undefined, image: Docker.ImageInspectInfo): boolean {
  if (jobEntrypoint !== undefined) return jobEntrypoint.length > 0 && jobEntrypoint.every((part) => part === '');
  return (image.Config?.Entrypoint?.length ?? 0) === 0;
}

/** Like Promise.all, but settles every promise first, so nothing is still being created when cleanup runs. */
async function settledAll<T extends readonly unknown[]>(promises: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

function checkAllowed(image: string, globs: readonly string[], what: 'images' | 'services'): void {
  if (isAllowed(image, globs)) return;
  throw new ExecutorError(
    `The "${image}" image is not present on list of allowed ${what}:\n${globs.map((glob) => `- ${glob}`).join('\n')}\nPlease check runner's configuration`,
    'image',
  );
}
