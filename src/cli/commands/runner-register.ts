/**
 * `runner register`: non-interactive from flags and gitlab-runner's environment variables,
 * asking on a terminal for what is missing; appends a `[[runners]]` entry to config.toml.
 * With `--token` (a runner authentication token, `glrt-…`, from `POST /user/runners` or
 * GitLab's UI, or an existing runner's token) it only verifies the token, reporting this
 * host's system id so the coordinator records it as one of the runner's managers.
 */
import os from 'node:os';
import { isExecutorName } from '../../executors/registry.ts';
import { loadSystemId } from '../../runner/config/system-id.ts';
import { appendRunner } from '../../runner/config/write.ts';
import { registerRunner, verifyRunner } from '../../runner/http/runner-api.ts';
import { Transport, TransportError } from '../../runner/http/transport.ts';
import { runnerInfo, userAgent } from '../../runner/version.ts';
import { CommandError, configPath, shown, type CommandIo } from './runner-config.ts';

export interface RegisterArgs {
  config?: string;
  nonInteractive?: boolean;
  url?: string;
  registrationToken?: string;
  token?: string;
  name?: string;
  description?: string;
  tagList?: string;
  runUntagged?: boolean;
  locked?: boolean;
  paused?: boolean;
  maintenanceNote?: string;
  accessLevel?: string;
  maximumTimeout?: number;
  executor?: string;
  shell?: string;
  limit?: number;
  dockerImage?: string;
  dockerPullPolicy?: string[];
}

const bool = (value: string | undefined): boolean | undefined => (value === undefined ? undefined : ['1', 'true', 'yes'].includes(value.toLowerCase()));

export async function runRegister(args: RegisterArgs, io: CommandIo): Promise<number> {
  const env = io.env;
  const interactive = !args.nonInteractive && io.ask !== undefined;
  const need = async (value: string | undefined, flag: string, variable: string, question: string): Promise<string> => {
    if (value) return value;
    if (interactive && io.ask) {
      const answer = (await io.ask(`${question}\n`)).trim();
      if (answer) return answer;
    }
    throw new CommandError(`--${flag} is missing (or set ${variable})`);
  };
  const url = await need(args.url ?? env.CI_SERVER_URL, 'url', 'CI_SERVER_URL', 'Enter the GitLab instance URL (for example, https://gitlab.com/):');
  const existingToken = args.token ?? env.CI_SERVER_TOKEN;
  const registrationToken = existingToken ? undefined : await need(args.registrationToken ?? env.REGISTRATION_TOKEN, 'registration-token', 'REGISTRATION_TOKEN', 'Enter the registration token:');
  const name = args.name ?? args.description ?? env.RUNNER_NAME ?? (interactive && io.ask ? (await io.ask(`Enter a description for the runner [${os.hostname()}]:\n`)).trim() : '') ?? '';
  const executor = await need(args.executor ?? env.RUNNER_EXECUTOR, 'executor', 'RUNNER_EXECUTOR', 'Enter an executor: shell, docker:');
  if (!isExecutorName(executor) || executor === 'fake') throw new CommandError(`unknown executor "${executor}" (known: shell, docker)`);
  const shell = args.shell ?? env.RUNNER_SHELL;
  if (shell !== undefined && shell !== 'bash' && shell !== 'sh') throw new CommandError(`unknown shell "${shell}" (known: bash, sh)`);
  const dockerImage = executor === 'docker' ? await need(args.dockerImage ?? env.DOCKER_IMAGE, 'docker-image', 'DOCKER_IMAGE', 'Enter the default Docker image (for example, ruby:2.7):') : undefined;
  const accessLevel = args.accessLevel ?? env.REGISTER_ACCESS_LEVEL;
  if (accessLevel !== undefined && accessLevel !== 'not_protected' && accessLevel !== 'ref_protected') throw new CommandError(`--access-level must be not_protected or ref_protected`);
  const tagList = (args.tagList ?? env.RUNNER_TAG_LIST ?? '').split(',').map((tag) => tag.trim()).filter(Boolean);
  const runUntagged = tagList.length === 0 ? true : (args.runUntagged ?? bool(env.REGISTER_RUN_UNTAGGED) ?? false);
  const file = configPath(args, io);

  let transport: Transport;
  try {
    transport = new Transport({ url, userAgent: userAgent() });
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  try {
    let token: string;
    let expiresAt: string | null = null;
    let id: number | undefined;
    if (existingToken) {
      const verified = await verifyRunner(transport, existingToken, await loadSystemId(file));
      if (verified.kind === 'removed') throw new CommandError('the runner token is not valid (403 from the coordinator)');
      token = existingToken;
      id = verified.id;
      expiresAt = verified.tokenExpiresAt ?? null;
    } else {
      const result = await registerRunner(transport, {
        registrationToken: registrationToken ?? '',
        description: name || os.hostname(),
        tagList,
        runUntagged,
        locked: args.locked ?? bool(env.REGISTER_LOCKED) ?? true,
        accessLevel: accessLevel as 'not_protected' | 'ref_protected' | undefined,
        maximumTimeout: args.maximumTimeout ?? (env.REGISTER_MAXIMUM_TIMEOUT ? Number(env.REGISTER_MAXIMUM_TIMEOUT) : undefined),
        active: !(args.paused ?? bool(env.REGISTER_PAUSED) ?? false),
        maintenanceNote: args.maintenanceNote ?? env.REGISTER_MAINTENANCE_NOTE,
        info: runnerInfo(),
      });
      if (result.kind === 'forbidden') throw new CommandError('registration failed: 403 forbidden (check the registration token)');
      if (result.kind === 'failed') throw new CommandError(`registration failed: ${result.status === -1 ? '' : `${result.status} `}${result.message}`);
      token = result.token;
      expiresAt = result.tokenExpiresAt;
      id = result.id ?? undefined;
    }
    await appendRunner(file, {
      name: name || os.hostname(),
      url,
      id,
      token,
      tokenObtainedAt: new Date().toISOString(),
      tokenExpiresAt: expiresAt,
      executor,
      shell,
      limit: args.limit,
      docker: dockerImage ? { image: dockerImage, volumes: ['/cache'], pull_policy: args.dockerPullPolicy } : undefined,
    });
    io.stdout(`Runner registered successfully (token ${shown(token)}). Its configuration is in ${file}; start it with: runner run --config ${file}\n`);
    return 0;
  } catch (error) {
    if (error instanceof TransportError) throw new CommandError(`cannot reach the coordinator at ${url}: ${error.message.replace(/^\w+ \S+: /, '')}`);
    throw error;
  } finally {
    await transport.close();
  }
}
