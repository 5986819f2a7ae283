import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { GANTRY_VERSION } from '../shared/version.ts';
import { resolveSettings } from './coordinator-settings.ts';

/** `serve` is a server and listens on every interface; `start`, the local all-in-one, on loopback only. */
const SERVE_HOST = '0.0.0.0';
const START_HOST = '127.0.0.1';

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
