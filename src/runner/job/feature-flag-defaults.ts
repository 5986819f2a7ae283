/** gitlab-runner's feature flags (`FF_*`) and their defaults. */

/**
 * gitlab-runner 13.12's feature flags with their defaults, as it exports them to every job,
 * first among the runner's variables (reference §8.3, §10.2).
 */
export const FEATURE_FLAG_DEFAULTS: ReadonlyArray<readonly [name: string, on: boolean]> = [
  ['FF_CMD_DISABLE_DELAYED_ERROR_LEVEL_EXPANSION', false],
  ['FF_NETWORK_PER_BUILD', false],
  ['FF_USE_LEGACY_KUBERNETES_EXECUTION_STRATEGY', true],
  ['FF_USE_DIRECT_DOWNLOAD', true],
  ['FF_SKIP_NOOP_BUILD_STAGES', true],
  ['FF_SHELL_EXECUTOR_USE_LEGACY_PROCESS_KILL', false],
  ['FF_RESET_HELPER_IMAGE_ENTRYPOINT', true],
  ['FF_USE_GO_CLOUD_WITH_CACHE_ARCHIVER', true],
  ['FF_USE_FASTZIP', false],
  ['FF_GITLAB_REGISTRY_HELPER_IMAGE', false],
  ['FF_DISABLE_UMASK_FOR_DOCKER_EXECUTOR', false],
  ['FF_ENABLE_BASH_EXIT_CODE_CHECK', false],
  ['FF_USE_WINDOWS_LEGACY_PROCESS_STRATEGY', true],
  ['FF_SKIP_DOCKER_MACHINE_PROVISION_ON_CREATION_FAILURE', false],
  ['FF_USE_NEW_BASH_EVAL_STRATEGY', false],
];
