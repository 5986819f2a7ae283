/** From a `[[runners]]` entry to what the executor and the job engine need. */
import path from 'node:path';
import { createExecutor } from '../../executors/registry.ts';
import type { Executor } from '../../executors/types.ts';
import type { RunnerEntry } from '../config/config.ts';
import type { JobSettings } from '../job/context.ts';
import { shortToken, type RunnerIdentity } from '../job/identity.ts';
import { architecture, PRODUCT_NAME, REVISION, userAgent, VERSION } from '../version.ts';

export function buildsDirOf(entry: RunnerEntry, workingDirectory: string): string {
  return path.resolve(workingDirectory, entry.buildsDir || 'builds');
}

export function jobSettingsOf(entry: RunnerEntry, workingDirectory: string): JobSettings {
  return {
    shell: entry.shell,
    buildsDir: buildsDirOf(entry, workingDirectory),
    cacheDir: path.resolve(workingDirectory, entry.cache.path || entry.cacheDir || 'cache'),
    outputLimit: entry.outputLimit * 1024,
    environment: entry.environment,
    preGetSourcesScript: entry.preGetSourcesScript,
    postGetSourcesScript: entry.postGetSourcesScript,
    preBuildScript: entry.preBuildScript,
    postBuildScript: entry.postBuildScript,
    cloneUrl: entry.cloneUrl || undefined,
    ...(entry.tlsCaFile ? { tlsCaFile: entry.tlsCaFile } : {}),
    ...(entry.tlsCertFile ? { tlsCertFile: entry.tlsCertFile } : {}),
    ...(entry.tlsKeyFile ? { tlsKeyFile: entry.tlsKeyFile } : {}),
    debugTraceDisabled: entry.debugTraceDisabled,
    afterScriptTimeout: 300,
    prepareAttempts: 3,
    prepareRetryDelayMs: 3000,
    featureFlags: entry.featureFlags,
    ...(entry.customBuildDir !== undefined ? { customBuildDir: entry.customBuildDir } : {}),
  };
}

export function identityOf(entry: RunnerEntry): RunnerIdentity {
  return {
    name: entry.name,
    shortToken: shortToken(entry.token),
    productName: PRODUCT_NAME,
    version: VERSION,
    revision: REVISION,
    arch: `${process.platform}/${architecture()}`,
    userAgent: userAgent(),
  };
}

export function executorOf(entry: RunnerEntry, workingDirectory: string): Executor {
  return createExecutor(entry.executor, { buildsDir: buildsDirOf(entry, workingDirectory), docker: entry.docker });
}
