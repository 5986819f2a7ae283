/**
 * What a stock gitlab-runner 18.x sends, as its published source builds it (common/network.go,
 * network/gitlab.go, network/trace.go at 18.x): shared by test/coordinator/runner-protocol-18.test.ts
 * and bench/support/stock-runner-replay.ts.
 */
import CRC32 from 'crc-32';

export const USER_AGENT_18 = 'gitlab-runner 18.11.0 (18-11-stable; go1.24.6; linux/amd64)';

/** `common.Info` of 18.x for the shell executor (bash): every feature is sent, set or not. */
export const INFO_18 = {
  name: 'gitlab-runner',
  version: '18.11.0',
  revision: '3b6f2a9c',
  platform: 'linux',
  architecture: 'amd64',
  executor: 'shell',
  shell: 'bash',
  features: {
    variables: true, image: false, services: false, artifacts: true, cache: true, fallback_cache_keys: true, shared: true,
    upload_multiple_artifacts: true, upload_raw_artifacts: true, session: true, terminal: true, refspecs: true, masking: true, proxy: false,
    raw_variables: true, artifacts_exclude: true, multi_build_steps: true, trace_reset: true, trace_checksum: true, trace_size: true,
    vault_secrets: true, cancelable: true, return_exit_code: true, service_variables: false, service_multiple_aliases: false,
    image_executor_opts: false, service_executor_opts: false, cancel_gracefully: true, native_steps_integration: false,
    two_phase_job_commit: true, job_inputs: true,
  },
  config: { gpus: '' },
};

/** The trace checksum 18.x sends with its updates (`trace_checksum`): `crc32:` and 8 hex digits. */
export const traceChecksum = (bytes: Uint8Array): string => `crc32:${(CRC32.buf(bytes) >>> 0).toString(16).padStart(8, '0')}`;
