/** `runner verify [--delete]`, `runner unregister ...`, `runner list`. */
import { removeRunners } from '../../runner/config/write.ts';
import { unregisterRunner, verifyRunner } from '../../runner/http/runner-api.ts';
import { Transport, TransportError } from '../../runner/http/transport.ts';
import { userAgent } from '../../runner/version.ts';
import type { RunnerEntry } from '../../runner/config/config.ts';
import { CommandError, configPath, loadConfig, shown, type CommandIo } from './runner-config.ts';

async function withTransport<T>(entry: RunnerEntry, work: (transport: Transport) => Promise<T>): Promise<T> {
  const transport = new Transport({ url: entry.url, userAgent: userAgent(), tlsCaFile: entry.tlsCaFile, tlsCertFile: entry.tlsCertFile, tlsKeyFile: entry.tlsKeyFile });
  try {
    return await work(transport);
  } finally {
    await transport.close();
  }
}

export async function runList(args: { config?: string }, io: CommandIo): Promise<number> {
  const file = configPath(args, io);
  const config = await loadConfig(file, io);
  io.stdout(`Listing configured runners  ConfigFile=${file}\n`);
  for (const entry of config.runners) io.stdout(`${entry.name || '(unnamed)'}  Executor=${entry.executor} Token=${shown(entry.token)} URL=${entry.url}\n`);
  return 0;
}

export async function runVerify(args: { config?: string; delete?: boolean; name?: string }, io: CommandIo): Promise<number> {
  const file = configPath(args, io);
  const config = await loadConfig(file, io);
  const entries = config.runners.filter((entry) => args.name === undefined || entry.name === args.name);
  if (args.name !== undefined && entries.length === 0) throw new CommandError(`no runner named "${args.name}" in ${file}`);
  const removed = new Set<string>();
  let failed = false;
  for (const entry of entries) {
    try {
      const result = await withTransport(entry, (transport) => verifyRunner(transport, entry.token));
      if (result.kind === 'removed') removed.add(entry.token);
      const what = result.kind === 'alive' ? 'is alive' : result.kind === 'removed' ? 'is removed' : `answered ${result.status}`;
      io.stdout(`Verifying runner... ${what}  runner=${entry.token.slice(0, 8)} name=${entry.name}\n`);
      if (result.kind === 'unknown') failed = true;
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      io.stderr(`Verifying runner... cannot reach ${entry.url}: ${error.message.replace(/^\w+ \S+: /, '')}  runner=${entry.token.slice(0, 8)}\n`);
      failed = true;
    }
  }
  if (args.delete && removed.size > 0) {
    const count = await removeRunners(file, (entry) => removed.has(String(entry.token)));
    io.stdout(`Removed ${count} runner(s) the coordinator no longer knows from ${file}\n`);
  }
  return failed ? 1 : 0;
}

export async function runUnregister(args: { config?: string; name?: string; url?: string; token?: string; allRunners?: boolean }, io: CommandIo): Promise<number> {
  const file = configPath(args, io);
  const config = await loadConfig(file, io);
  let selected: RunnerEntry[];
  if (args.allRunners) selected = config.runners;
  else if (args.name !== undefined) selected = config.runners.filter((entry) => entry.name === args.name);
  else if (args.url !== undefined && args.token !== undefined) {
    const found = config.runners.filter((entry) => entry.token === args.token);
    selected = found.length > 0 ? found : [{ ...config.runners[0], name: '', url: args.url, token: args.token }];
  } else throw new CommandError('name a runner: --name NAME, --url URL --token TOKEN, or --all-runners');
  if (selected.length === 0) throw new CommandError(`no runner named "${args.name}" in ${file}`);
  const gone = new Set<string>();
  let failed = false;
  for (const entry of selected) {
    try {
      const result = await withTransport(entry, (transport) => unregisterRunner(transport, entry.token));
      if (result.ok) gone.add(entry.token);
      else failed = true;
      io.stdout(`Unregistering runner from GitLab ${result.ok ? 'succeeded' : `failed (${result.status})`}  runner=${entry.token.slice(0, 8)}\n`);
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      io.stderr(`Unregistering runner... cannot reach ${entry.url}: ${error.message.replace(/^\w+ \S+: /, '')}\n`);
      failed = true;
    }
  }
  if (gone.size > 0) await removeRunners(file, (entry) => gone.has(String(entry.token)));
  return failed ? 1 : 0;
}
