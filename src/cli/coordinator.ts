import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { GANTRY_VERSION } from '../shared/version.ts';
import type { CoordinatorSettings } from './commands/settings.ts';
import { readCoordinatorConfig, type CoordinatorFileConfig } from './config-file.ts';

/** The options `serve` and `start` share; flags win over GANTRY_* variables, which win over the config file. */
function withCommonOptions<T>(y: Argv<T>, defaultHost: string) {
  return y
    .option('config', { type: 'string', describe: 'TOML file with a [coordinator] table (see config.example.toml)' })
    .option('port', { type: 'number', describe: 'TCP port (GANTRY_PORT; default 8080; 0 picks a free one)' })
    .option('host', { type: 'string', describe: `Address to bind (GANTRY_HOST; default ${defaultHost})` })
    .option('data-dir', { type: 'string', describe: 'Data directory (GANTRY_DATA_DIR; default ./data)' })
    .option('database-url', { type: 'string', describe: 'postgres://... (GANTRY_DATABASE_URL; default SQLite in the data dir)' })
    .option('external-url', { type: 'string', describe: 'URL clients use to reach us (GANTRY_EXTERNAL_URL)' })
    .option('job-request-long-poll', { type: 'number', describe: 'Seconds an idle POST /jobs/request is held (default 50; 0: none; at most 540)' });
}

interface CommonArgs {
  config?: string;
  port?: number;
  host?: string;
  'data-dir'?: string;
  'database-url'?: string;
  'external-url'?: string;
  'job-request-long-poll'?: number;
}

/** `serve` is a server and listens on every interface; `start`, the local all-in-one, on loopback only. */
const SERVE_HOST = '0.0.0.0';
const START_HOST = '127.0.0.1';

function resolveSettings(args: CommonArgs, env: NodeJS.ProcessEnv, defaultHost: string): CoordinatorSettings {
  const file: CoordinatorFileConfig = args.config ? readCoordinatorConfig(args.config) : {};
  const port = args.port ?? (env.GANTRY_PORT ? Number(env.GANTRY_PORT) : undefined) ?? file.port ?? 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${port}`);
  const longPoll = args['job-request-long-poll'] ?? file.job_request_long_poll_seconds;
  if (longPoll !== undefined && !(Number.isInteger(longPoll) && longPoll >= 0 && longPoll <= 540)) {
    throw new Error(`invalid job request long poll: ${longPoll} (whole seconds from 0 to 540)`);
  }
  return {
    port,
    host: args.host ?? env.GANTRY_HOST ?? file.host ?? defaultHost,
    dataDir: args['data-dir'] ?? env.GANTRY_DATA_DIR ?? file.data_dir ?? './data',
    databaseUrl: args['database-url'] || env.GANTRY_DATABASE_URL || file.database_url || undefined,
    externalUrl: args['external-url'] || env.GANTRY_EXTERNAL_URL || file.external_url || undefined,
    rootToken: env.GANTRY_ROOT_TOKEN || undefined,
    jobRequestLongPollSeconds: longPoll,
    bodyLimits: { bodyLimit: file.body_limit, contentBodyLimit: file.content_body_limit, anonymousBodyLimit: file.anonymous_body_limit, uploadBodyLimit: file.upload_body_limit },
    archiveMemberLimits: { maxMembers: file.artifact_archive_max_members, maxDirectoryBytes: file.artifact_archive_max_directory_bytes },
    shutdownGraceMs: file.shutdown_grace_ms,
  };
}

const printLine = (line: string) => process.stdout.write(`${line}\n`);

/** `coordinator` command line. Only cli/ calls process.exit. */
export async function main(argv: string[]): Promise<void> {
  const env = process.env;
  await yargs(argv)
    .scriptName('coordinator')
    .command(
      'serve',
      'Run the coordinator HTTP server (API v4, runner protocol, git over HTTP)',
      (y) => withCommonOptions(y, SERVE_HOST),
      async (args) => {
        const { serve } = await import('./commands/serve.ts');
        await serve(resolveSettings(args, env, SERVE_HOST), printLine);
      },
    )
    .command(
      'start',
      'The coordinator plus a runner registered to it, in one process (what `npm start` runs)',
      (y) => withCommonOptions(y, START_HOST),
      async (args) => {
        const { startLocal } = await import('./commands/start-local.ts');
        await startLocal(resolveSettings(args, env, START_HOST), printLine);
      },
    )
    .demandCommand(1, 'Name a command: serve or start')
    .strict()
    .fail(false)
    .version(GANTRY_VERSION)
    .help()
    .parseAsync();
}

main(hideBin(process.argv)).catch((error: unknown) => {
  process.stderr.write(`coordinator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
