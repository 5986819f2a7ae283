/**
 * Services: one container per `services[]` entry on the job's network under its aliases
 * (`tutum/wordpress` → `tutum__wordpress`, `tutum-wordpress`, a registry kept, plus `alias`), and a wait for
 * each one's `HEALTHCHECK_TCP_PORT` or first exposed TCP port from a probe container on the same
 * network (so a remote daemon works too). A service that does not answer is a warning, not a failure (as in gitlab-runner).
 */
import type Docker from 'dockerode';
import { connect } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import type { Service } from '../../protocol/job-payload.ts';
import { resourceLabels } from './labels.ts';
import { describe } from './environment.ts';

export interface StartedService {
  name: string;
  containerId: string;
  aliases: string[];
  port: number | null;
  /** Why the port to wait on is not known (a bad HEALTHCHECK_TCP_PORT): a warning instead of the wait. */
  healthCheckError?: string;
}

/**
 * Network aliases of a service image, as gitlab-runner names them: the image without tag,
 * digest and registry port, its registry kept (`registry.example.com:5000/group/db:1` →
 * `registry.example.com__group__db`, `registry.example.com-group-db`), then `alias`.
 */
export function serviceAliases(service: Service): string[] {
  const withoutTag = service.name.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
  const withoutPort = withoutTag.replace(/^([^/]*?):[0-9]+(?=\/|$)/, '$1');
  const aliases = [withoutPort.replace(/\//g, '__'), withoutPort.replace(/\//g, '-')];
  if (service.alias) aliases.push(...service.alias.split(/[\s,]+/).filter(Boolean));
  return [...new Set(aliases)];
}

/**
 * The port the runner waits on: the service environment's `HEALTHCHECK_TCP_PORT` (the key in
 * any case, from the job's variables or the service's own), as gitlab-runner reads it from the
 * container; else a declared port, else the image's lowest exposed TCP port. A value that is not
 * a port is an error, reported as the service's health-check error.
 */
export function healthCheckPort(service: Service, image: Docker.ImageInspectInfo, env: readonly string[]): number | null {
  const entry = env.find((pair) => pair.slice(0, pair.indexOf('=')).toUpperCase() === 'HEALTHCHECK_TCP_PORT');
  if (entry === undefined) return firstTcpPort(service, image);
  const value = entry.slice(entry.indexOf('=') + 1);
  const port = /^[-+]?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(port) || port > 2 ** 31 - 1 || port < -(2 ** 31)) throw new Error(`invalid health check tcp port: ${value}`);
  return port;
}

export function firstTcpPort(service: Service, image: Docker.ImageInspectInfo): number | null {
  const declared = service.ports.find((port) => !port.protocol || port.protocol === 'tcp' || port.protocol === 'http');
  if (declared) return declared.number;
  const exposed = Object.keys(image.Config?.ExposedPorts ?? {})
    .filter((key) => key.endsWith('/tcp'))
    .map((key) => Number(key.split('/')[0]))
    .filter((port) => Number.isInteger(port))
    .sort((a, b) => a - b);
  return exposed[0] ?? null;
}

export interface ServiceStartOptions {
  docker: Docker;
  service: Service;
  index: number;
  image: Docker.ImageInspectInfo;
  namePrefix: string;
  jobId: number;
  shortToken: string;
  network: string | null;
  binds: string[];
  hostConfig: Docker.HostConfig;
  env: string[];
  created: { containers: string[] };
}

export async function startService(options: ServiceStartOptions): Promise<StartedService> {
  const { docker, service, network } = options;
  const aliases = serviceAliases(service);
  const slug = aliases[1].replace(/[^a-zA-Z0-9_.-]/g, '-');
  const userNetwork = network && !['bridge', 'host', 'none'].includes(network) && !network.startsWith('container:');
  const container = await docker.createContainer({
    name: `${options.namePrefix}-service-${slug}-${options.index}`,
    Image: service.name,
    ...(service.entrypoint ? { Entrypoint: service.entrypoint } : {}),
    ...(service.command ? { Cmd: service.command } : {}),
    ...(service.executor_opts?.docker?.user ? { User: service.executor_opts.docker.user } : {}),
    Env: options.env,
    Labels: resourceLabels('service', options.jobId, options.shortToken),
    HostConfig: { ...options.hostConfig, Binds: options.binds, ...(network ? { NetworkMode: network } : {}) },
    ...(userNetwork ? { NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: aliases } } } } : {}),
  });
  options.created.containers.push(container.id);
  await container.start();
  try {
    return { name: service.name, containerId: container.id, aliases, port: healthCheckPort(service, options.image, options.env) };
  } catch (error) {
    return { name: service.name, containerId: container.id, aliases, port: null, healthCheckError: describe(error) };
  }
}

/**
 * A sh loop, run in a container on the job's network, that succeeds once `host:port` accepts
 * a TCP connection: bash's /dev/tcp, `nc -z`, or busybox nc (exit 1 only when refused).
 */
export function probeScript(host: string, port: number, timeoutSeconds: number): string {
  return [
    `end=$(( $(date +%s) + ${Math.max(1, Math.ceil(timeoutSeconds))} ))`,
    'while [ "$(date +%s)" -lt "$end" ]; do',
    `  if [ -n "$BASH_VERSION" ]; then (exec 3<>/dev/tcp/${host}/${port}) >/dev/null 2>&1 && exit 0`,
    `  elif nc -z -w 1 127.0.0.1 1 2>&1 | grep -q 'invalid option'; then timeout 2 nc -w 1 ${host} ${port} </dev/null >/dev/null 2>&1; [ $? -ne 1 ] && exit 0`,
    `  elif command -v nc >/dev/null 2>&1; then nc -z -w 1 ${host} ${port} >/dev/null 2>&1 && exit 0`,
    '  else echo "no bash nor nc to probe with"; exit 2; fi',
    '  sleep 1',
    'done',
    'exit 1',
  ].join('\n');
}

/** Waits on this machine for `host:port` (a local daemon's container address); false on timeout. */
export async function waitForTcp(host: string, port: number, timeoutSeconds: number, signal: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  while (Date.now() < deadline && !signal.aborted) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port, timeout: 1000 });
      const done = (result: boolean) => {
        socket.destroy();
        resolve(result);
      };
      socket.once('connect', () => done(true));
      socket.once('timeout', () => done(false));
      socket.once('error', () => done(false));
    });
    if (open) return true;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return false;
}

/** The service's address on `network`, when the daemon reports one. */
export async function serviceAddress(docker: Docker, containerId: string, network: string | null): Promise<string | null> {
  const info = await docker.getContainer(containerId).inspect();
  const networks = info.NetworkSettings?.Networks ?? {};
  const entry = (network ? networks[network] : undefined) ?? Object.values(networks)[0];
  return entry?.IPAddress || null;
}

export async function serviceLogs(docker: Docker, containerId: string): Promise<string> {
  try {
    const raw = (await docker.getContainer(containerId).logs({ stdout: true, stderr: true, tail: 20, follow: false })) as unknown as Buffer;
    return demuxBuffer(raw);
  } catch (error) {
    return `(no logs: ${describe(error)})`;
  }
}

/** Docker's multiplexed log frames (8-byte headers) to plain text. */
function demuxBuffer(raw: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= raw.length && raw[offset] <= 2 && raw[offset + 1] === 0) {
    const size = raw.readUInt32BE(offset + 4);
    parts.push(raw.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return (offset === 0 ? raw : Buffer.concat(parts)).toString('utf8');
}

/**
 * CI_DEBUG_SERVICES: the service's output followed into the job log while it runs, each line
 * with the daemon's timestamp after gitlab-runner's grey `[service:<aliases joined by ->]`
 * prefix. It ends when the container is removed (or `signal` aborts).
 */
export async function followServiceLogs(docker: Docker, service: StartedService, log: (line: string) => void, signal: AbortSignal): Promise<void> {
  const source = (await docker.getContainer(service.containerId).logs({ follow: true, stdout: true, stderr: true, timestamps: true, abortSignal: signal })) as unknown as Readable;
  const lines = new PassThrough();
  docker.modem.demuxStream(source, lines, lines);
  source.on('end', () => lines.end());
  source.on('error', () => lines.end());
  const prefix = `\x1b[0;90m[service:${service.aliases.join('-')}] `;
  let partial = '';
  lines.setEncoding('utf8');
  lines.on('data', (text: string) => {
    const parts = (partial + text).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) log(`${prefix}${line}\x1b[0;m`);
  });
  lines.on('end', () => {
    if (partial !== '') log(`${prefix}${partial}\x1b[0;m`);
  });
}
