/**
 * config.toml's keys (gitlab-runner's names, so existing files work; reference §9.2) with
 * their types and defaults. Keys gitlab-runner knows and this runner does not implement are
 * accepted with a warning, as are unknown keys.
 */

export type KeyType = 'string' | 'integer' | 'boolean' | 'strings' | 'pull_policy' | 'datetime' | { oneOf: readonly string[] };

export interface KeySpec {
  type: KeyType;
  /** The name the parsed config uses. */
  as: string;
}

const key = (type: KeyType, as: string): KeySpec => ({ type, as });

export const GLOBAL_KEYS: Record<string, KeySpec> = {
  concurrent: key('integer', 'concurrent'),
  check_interval: key('integer', 'checkInterval'),
  log_level: key({ oneOf: ['debug', 'info', 'warn', 'warning', 'error', 'fatal', 'panic'] }, 'logLevel'),
  log_format: key({ oneOf: ['runner', 'text', 'json'] }, 'logFormat'),
  listen_address: key('string', 'listenAddress'),
  shutdown_timeout: key('integer', 'shutdownTimeout'),
};
export const GLOBAL_IGNORED = ['user', 'sentry_dsn', 'session_server', 'connection_max_age'];

export const RUNNER_KEYS: Record<string, KeySpec> = {
  name: key('string', 'name'),
  url: key('string', 'url'),
  token: key('string', 'token'),
  'tls-ca-file': key('string', 'tlsCaFile'),
  'tls-cert-file': key('string', 'tlsCertFile'),
  'tls-key-file': key('string', 'tlsKeyFile'),
  executor: key('string', 'executor'),
  limit: key('integer', 'limit'),
  request_concurrency: key('integer', 'requestConcurrency'),
  output_limit: key('integer', 'outputLimit'),
  builds_dir: key('string', 'buildsDir'),
  cache_dir: key('string', 'cacheDir'),
  environment: key('strings', 'environment'),
  shell: key({ oneOf: ['bash', 'sh'] }, 'shell'),
  pre_get_sources_script: key('string', 'preGetSourcesScript'),
  pre_clone_script: key('string', 'preGetSourcesScript'),
  post_get_sources_script: key('string', 'postGetSourcesScript'),
  post_clone_script: key('string', 'postGetSourcesScript'),
  pre_build_script: key('string', 'preBuildScript'),
  post_build_script: key('string', 'postBuildScript'),
  clone_url: key('string', 'cloneUrl'),
  debug_trace_disabled: key('boolean', 'debugTraceDisabled'),
  // What `register` learned of the token (gitlab-runner writes them too); an expiring token is rotated (daemon/token-rotation.ts).
  id: key('integer', 'id'),
  token_obtained_at: key('datetime', 'tokenObtainedAt'),
  token_expires_at: key('datetime', 'tokenExpiresAt'),
};
export const RUNNER_IGNORED = ['referees', 'unhealthy_requests_limit', 'unhealthy_interval', 'custom', 'machine', 'kubernetes', 'ssh', 'parallels', 'virtualbox', 'autoscaler'];

export const DOCKER_KEYS: Record<string, KeySpec> = {
  host: key('string', 'host'),
  tls_verify: key('boolean', 'tlsVerify'),
  tls_cert_path: key('string', 'tlsCertPath'),
  image: key('string', 'image'),
  privileged: key('boolean', 'privileged'),
  cap_add: key('strings', 'capAdd'),
  cap_drop: key('strings', 'capDrop'),
  volumes: key('strings', 'volumes'),
  pull_policy: key('pull_policy', 'pullPolicy'),
  allowed_pull_policies: key('pull_policy', 'allowedPullPolicies'),
  allowed_images: key('strings', 'allowedImages'),
  allowed_services: key('strings', 'allowedServices'),
  network_mode: key('string', 'networkMode'),
  wait_for_services_timeout: key('integer', 'waitForServicesTimeout'),
  memory: key('string', 'memory'),
  cpus: key('string', 'cpus'),
  dns: key('strings', 'dns'),
  extra_hosts: key('strings', 'extraHosts'),
  helper_image: key('string', 'helperImage'),
};
export const DOCKER_IGNORED = [
  'disable_cache', 'cache_dir', 'services', 'links', 'dns_search', 'memory_swap', 'memory_reservation', 'cpuset_cpus', 'cpu_shares', 'security_opt',
  'devices', 'gpus', 'shm_size', 'tmpfs', 'services_tmpfs', 'sysctls', 'hostname', 'runtime', 'userns_mode', 'oom_kill_disable',
  'disable_entrypoint_overwrite', 'volume_driver', 'volumes_from', 'helper_image_flavor', 'wait_for_services_timeout_seconds',
];

export const CACHE_KEYS: Record<string, KeySpec> = {
  Type: key('string', 'type'),
  Path: key('string', 'path'),
  Shared: key('boolean', 'shared'),
};
export const CACHE_IGNORED = ['s3', 'gcs', 'azure', 'MaxUploadedArchiveSize'];

/** `[runners.custom_build_dir]`: whether GIT_CLONE_PATH may place the clone (default: docker yes, shell no). */
export const CUSTOM_BUILD_DIR_KEYS: Record<string, KeySpec> = {
  enabled: key('boolean', 'enabled'),
};
