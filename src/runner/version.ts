/**
 * The runner's identity on the wire: `info` of register/request/update (reference §2.2,
 * §3.1) with truthful `features`, and the User-Agent.
 */
import type { ExecutorFeatures, ExecutorName, ScriptShell } from '../executors/types.ts';
import { GANTRY_VERSION } from '../shared/version.ts';

export const PRODUCT_NAME = 'gantry-runner';
export const VERSION = GANTRY_VERSION;
export const REVISION = process.env.GANTRY_REVISION ?? 'unknown';

export function architecture(arch = process.arch): string {
  const names: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', s390x: 's390x', ppc64: 'ppc64le' };
  return names[arch] ?? arch;
}

/** `gantry-runner 0.1.0 (unknown; node v20.20.2; linux/amd64)`, gitlab-runner's layout. */
export function userAgent(): string {
  return `${PRODUCT_NAME} ${VERSION} (${REVISION}; node ${process.version}; ${process.platform}/${architecture()})`;
}

export interface RunnerFeatures {
  variables: boolean;
  image: boolean;
  services: boolean;
  artifacts: boolean;
  cache: boolean;
  shared: boolean;
  upload_multiple_artifacts: boolean;
  upload_raw_artifacts: boolean;
  session: boolean;
  terminal: boolean;
  refspecs: boolean;
  masking: boolean;
  proxy: boolean;
  raw_variables: boolean;
  artifacts_exclude: boolean;
  multi_build_steps: boolean;
  trace_reset: boolean;
  trace_checksum: boolean;
  trace_size: boolean;
  vault_secrets: boolean;
  cancelable: boolean;
  /** Runs after_script when the coordinator answers `Job-Status: canceling` (gitlab-runner 16.x). */
  cancel_gracefully: boolean;
  return_exit_code: boolean;
}

export interface RunnerInfoBody {
  name: string;
  version: string;
  revision: string;
  platform: string;
  architecture: string;
  executor?: string;
  shell?: string;
  features: RunnerFeatures;
}

/**
 * `info` as sent. Without an executor (registration) only the network client's features are
 * true, as gitlab-runner sends them. Vault secrets and interactive sessions are not supported.
 */
export function runnerInfo(executor?: { name: ExecutorName; features: ExecutorFeatures }, shell?: ScriptShell): RunnerInfoBody {
  const engine = executor !== undefined;
  const features: RunnerFeatures = {
    variables: executor?.features.variables ?? false,
    image: executor?.features.image ?? false,
    services: executor?.features.services ?? false,
    artifacts: engine,
    cache: engine,
    shared: executor?.features.shared ?? false,
    upload_multiple_artifacts: engine,
    upload_raw_artifacts: engine,
    session: executor?.features.session ?? false,
    terminal: executor?.features.terminal ?? false,
    refspecs: engine,
    masking: engine,
    proxy: false,
    raw_variables: engine,
    artifacts_exclude: engine,
    multi_build_steps: engine,
    trace_reset: true,
    trace_checksum: true,
    trace_size: true,
    vault_secrets: false,
    cancelable: true,
    cancel_gracefully: engine,
    return_exit_code: engine,
  };
  return {
    name: PRODUCT_NAME,
    version: VERSION,
    revision: REVISION,
    platform: process.platform,
    architecture: architecture(),
    ...(executor ? { executor: executor.name } : {}),
    ...(shell ? { shell } : {}),
    features,
  };
}
