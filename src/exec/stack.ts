/**
 * The coordinator's and the runner's modules `runner exec` starts in its process: most of what
 * it loads. session.ts loads this module while the first git process starts (see there).
 */
export { ciServicesOf, createCoordinator } from '../coordinator/app.ts';
export { INSTANCE_TOKEN_SETTING } from '../coordinator/services/ci/runners/tokens.ts';
export { parseRunnerConfig } from '../runner/config/config.ts';
export { newSystemId } from '../runner/config/system-id.ts';
export { RunnerDaemon } from '../runner/daemon/daemon.ts';
export { registerRunner } from '../runner/http/runner-api.ts';
export { Transport } from '../runner/http/transport.ts';
export { runnerInfo, userAgent } from '../runner/version.ts';
export { GitRepositoryManager } from '../storage/git/index.ts';
export { SHELL_FEATURES, ShellExecutor } from '../executors/shell/shell-executor.ts';
export { DOCKER_FEATURES } from '../executors/docker/settings.ts';
export { buildsDirOf, executorOf } from '../runner/daemon/settings.ts';
export { request } from 'undici';
