/** `[runners.docker]` as the docker executor uses it (the runner's config module fills it). */
import type Docker from 'dockerode';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { PullPolicy } from '../../protocol/job-payload.ts';
import type { ExecutorFeatures } from '../types.ts';

export type { PullPolicy } from '../../protocol/job-payload.ts';

export interface DockerSettings {
  /** `unix:///var/run/docker.sock`, `tcp://host:2376`; default: DOCKER_HOST, then the local socket. */
  host?: string;
  tlsVerify?: boolean;
  tlsCertPath?: string;
  /** Image for jobs that name none. */
  image?: string;
  privileged?: boolean;
  capAdd?: string[];
  capDrop?: string[];
  /** `/path` (a cache volume kept between jobs) or `host:container[:ro]` (a bind mount). */
  volumes?: string[];
  /** Tried in order; default `always`. A job's own `pull_policy` replaces it. */
  pullPolicy?: PullPolicy[];
  /** The policies a job's `pull_policy` may name (the others are dropped from its list); default: `pullPolicy`. */
  allowedPullPolicies?: PullPolicy[];
  /**
   * Not a config.toml key (`runner exec` sets it): an `always` pull that fails uses the image
   * the engine has, with a warning, so that a job asking for fresh images runs offline.
   */
  alwaysFallsBackToLocal?: boolean;
  allowedImages?: string[];
  allowedServices?: string[];
  networkMode?: string;
  /** Seconds; default 30. 0 or less skips waiting. */
  waitForServicesTimeout?: number;
  /** `512m`, `2g`, or bytes. */
  memory?: string;
  /** `1.5` */
  cpus?: string;
  dns?: string[];
  extraHosts?: string[];
  /** Image of the never-started container that holds the build volume for file transfers, and of the service probe; default: the job image. */
  helperImage?: string;
}

/** The client's options (TLS files read now, so a missing one fails at configuration time); undefined: dockerode's defaults. */
export function dockerOptions(settings: DockerSettings): Docker.DockerOptions | undefined {
  const host = settings.host ?? process.env.DOCKER_HOST;
  if (!host) return undefined;
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  if (!/^(tcp|https?):\/\//.test(host)) throw new Error(`docker host "${host}" is not supported (use unix:// or tcp://)`);
  const url = new URL(host.replace(/^tcp:/, settings.tlsVerify || settings.tlsCertPath ? 'https:' : 'http:'));
  const options: Docker.DockerOptions = { host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 2376 : 2375)), protocol: url.protocol === 'https:' ? 'https' : 'http' };
  if (settings.tlsCertPath) {
    options.ca = readFileSync(path.join(settings.tlsCertPath, 'ca.pem'));
    options.cert = readFileSync(path.join(settings.tlsCertPath, 'cert.pem'));
    options.key = readFileSync(path.join(settings.tlsCertPath, 'key.pem'));
  }
  return options;
}

export const DOCKER_FEATURES: Readonly<ExecutorFeatures> = { variables: true, image: true, services: true, shared: false, session: false, terminal: false };

/** Checks what can be checked at configuration time (so a bad value fails there, not in the middle of a job); answers the client's options. */
export function checkedDockerOptions(settings: DockerSettings): Docker.DockerOptions | undefined {
  const options = dockerOptions(settings);
  parseMemory(settings.memory);
  parseCpus(settings.cpus);
  return options;
}

/** `512m` → bytes; undefined when empty. Throws on a value docker would not understand. */
export function parseMemory(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const match = /^(\d+(?:\.\d+)?)\s*([bkmg]?)b?$/i.exec(value.trim());
  if (!match) throw new Error(`invalid docker memory "${value}" (use for example 512m or 2g)`);
  const scale: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
  return Math.floor(Number(match[1]) * (scale[match[2].toLowerCase()] ?? 1));
}

/** `1.5` → NanoCpus. */
export function parseCpus(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const cpus = Number(value);
  if (!Number.isFinite(cpus) || cpus <= 0) throw new Error(`invalid docker cpus "${value}"`);
  return Math.round(cpus * 1e9);
}
