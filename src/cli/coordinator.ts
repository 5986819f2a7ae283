import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { serve } from './commands/serve.ts';

/** `coordinator` command line. Only cli/ calls process.exit. */
export async function main(argv: string[]): Promise<void> {
  const env = process.env;
  await yargs(argv)
    .scriptName('coordinator')
    .command(
      'serve',
      'Run the coordinator HTTP server (API v4, runner protocol, git over HTTP)',
      (y) =>
        y
          .option('port', { type: 'number', default: Number(env.GANTRY_PORT ?? 8080), describe: 'TCP port (GANTRY_PORT)' })
          .option('host', { type: 'string', default: env.GANTRY_HOST ?? '0.0.0.0', describe: 'Address to bind (GANTRY_HOST)' })
          .option('data-dir', { type: 'string', default: env.GANTRY_DATA_DIR ?? './data', describe: 'Data directory (GANTRY_DATA_DIR)' })
          .option('database-url', { type: 'string', default: env.GANTRY_DATABASE_URL, describe: 'postgres://... ; default SQLite in the data dir (GANTRY_DATABASE_URL)' })
          .option('external-url', { type: 'string', default: env.GANTRY_EXTERNAL_URL, describe: 'URL clients use to reach us (GANTRY_EXTERNAL_URL)' }),
      async (args) => {
        if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) throw new Error(`invalid port: ${args.port}`);
        await serve(
          {
            port: args.port,
            host: args.host,
            dataDir: args['data-dir'],
            databaseUrl: args['database-url'] || undefined,
            externalUrl: args['external-url'] || undefined,
            rootToken: env.GANTRY_ROOT_TOKEN || undefined,
          },
          (line) => process.stdout.write(`${line}\n`),
        );
      },
    )
    .demandCommand(1, 'Name a command: serve')
    .strict()
    .help()
    .parseAsync();
}

main(hideBin(process.argv)).catch((error: unknown) => {
  process.stderr.write(`coordinator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
