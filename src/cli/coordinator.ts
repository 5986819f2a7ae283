import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { GANTRY_VERSION } from '../shared/version.ts';
import { readCoordinatorConfig, type CoordinatorFileConfig } from './config-file.ts';

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
          .option('config', { type: 'string', describe: 'TOML file with a [coordinator] table (see config.example.toml)' })
          .option('port', { type: 'number', describe: 'TCP port (GANTRY_PORT; default 8080)' })
          .option('host', { type: 'string', describe: 'Address to bind (GANTRY_HOST; default 0.0.0.0)' })
          .option('data-dir', { type: 'string', describe: 'Data directory (GANTRY_DATA_DIR; default ./data)' })
          .option('database-url', { type: 'string', describe: 'postgres://... (GANTRY_DATABASE_URL; default SQLite in the data dir)' })
          .option('external-url', { type: 'string', describe: 'URL clients use to reach us (GANTRY_EXTERNAL_URL)' }),
      async (args) => {
        const file: CoordinatorFileConfig = args.config ? readCoordinatorConfig(args.config) : {};
        const port = args.port ?? (env.GANTRY_PORT ? Number(env.GANTRY_PORT) : undefined) ?? file.port ?? 8080;
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${port}`);
        const { serve } = await import('./commands/serve.ts');
        await serve(
          {
            port,
            host: args.host ?? env.GANTRY_HOST ?? file.host ?? '0.0.0.0',
            dataDir: args['data-dir'] ?? env.GANTRY_DATA_DIR ?? file.data_dir ?? './data',
            databaseUrl: args['database-url'] || env.GANTRY_DATABASE_URL || file.database_url || undefined,
            externalUrl: args['external-url'] || env.GANTRY_EXTERNAL_URL || file.external_url || undefined,
            rootToken: env.GANTRY_ROOT_TOKEN || undefined,
            bodyLimits: {
              bodyLimit: file.body_limit,
              contentBodyLimit: file.content_body_limit,
              anonymousBodyLimit: file.anonymous_body_limit,
              uploadBodyLimit: file.upload_body_limit,
            },
          },
          (line) => process.stdout.write(`${line}\n`),
        );
      },
    )
    .command(
      'start',
      'The coordinator plus a runner registered to it, in one process (what `npm start` runs)',
      (y) =>
        y
          .option('port', { type: 'number', describe: 'TCP port (GANTRY_PORT; default 8080; 0 picks a free one)' })
          .option('host', { type: 'string', describe: 'Address to bind (GANTRY_HOST; default 0.0.0.0)' })
          .option('data-dir', { type: 'string', describe: 'Data directory (GANTRY_DATA_DIR; default ./data)' })
          .option('external-url', { type: 'string', describe: 'URL clients use to reach us (GANTRY_EXTERNAL_URL)' }),
      async (args) => {
        const port = args.port ?? (env.GANTRY_PORT ? Number(env.GANTRY_PORT) : 8080);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${port}`);
        const { startLocal } = await import('./commands/start-local.ts');
        await startLocal(
          {
            port,
            host: args.host ?? env.GANTRY_HOST ?? '0.0.0.0',
            dataDir: args['data-dir'] ?? env.GANTRY_DATA_DIR ?? './data',
            externalUrl: args['external-url'] || env.GANTRY_EXTERNAL_URL || undefined,
            rootToken: env.GANTRY_ROOT_TOKEN || undefined,
          },
          (line) => process.stdout.write(`${line}\n`),
        );
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
