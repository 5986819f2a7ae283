import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { timelineMark } from '../runner/timeline.ts';
import { userAgent } from '../runner/version.ts';
import { loadBundle } from './bundle-loader.ts';
import type { CommandIo } from './commands/runner-config.ts';
import { EXEC_DESCRIPTION, execOptions } from './exec-options.ts';

/**
 * `runner exec`'s command line and code: from the compiled package, the one-file CommonJS
 * bundle scripts/build.sh makes of them (scripts/bundle-exec.mjs; half the CPU time to load)
 * with its V8 code cache (less again), else their modules.
 */
async function execMainModule(): Promise<typeof import('./exec-main.ts')> {
  const bundle = fileURLToPath(new URL('./exec-bundle.cjs', import.meta.url));
  if (!existsSync(bundle)) return import('./exec-main.ts');
  const loaded = loadBundle<typeof import('./exec-main.ts')>(bundle, fileURLToPath(new URL('./exec-bundle.cache', import.meta.url)));
  timelineMark(`exec bundle loaded (code cache: ${loaded.codeCache})`);
  return loaded.exports;
}

function commandIo(): CommandIo {
  const io: CommandIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  };
  if (process.stdin.isTTY && process.stdout.isTTY) {
    io.ask = async (question) => {
      const prompt = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return await prompt.question(question);
      } finally {
        prompt.close();
      }
    };
  }
  return io;
}

/** `runner` command line. Only cli/ calls process.exit. */
export async function main(argv: string[]): Promise<number> {
  // Before yargs itself: the bundle holds its own, compiled from the code cache.
  if (argv[0] === 'exec') return (await execMainModule()).execMain(argv.slice(1));
  const { default: yargs } = await import('yargs');
  let exitCode = 0;
  const config = { type: 'string', describe: 'config.toml (default: GANTRY_RUNNER_CONFIG or ./config.toml)' } as const;
  await yargs(argv)
    .scriptName('runner')
    .usage('$0 <command> [options]\n\nGantry runner: registers with a coordinator (GitLab or Gantry), polls for jobs and runs them.')
    .version(userAgent())
    .command(
      'register',
      'Register a runner and add it to config.toml',
      (command) =>
        command
          .option('config', config)
          .option('non-interactive', { type: 'boolean', alias: 'n', describe: 'Never prompt; missing values are errors' })
          .option('url', { type: 'string', describe: 'Coordinator URL (CI_SERVER_URL)' })
          .option('registration-token', { type: 'string', nargs: 1, alias: 'r', describe: 'Registration token (REGISTRATION_TOKEN)' })
          .option('token', { type: 'string', nargs: 1, alias: 't', describe: 'A runner authentication token (glrt-…) or an existing runner token: verify it instead of registering (CI_SERVER_TOKEN)' })
          .option('name', { type: 'string', describe: 'Runner name (RUNNER_NAME)' })
          .option('description', { type: 'string', describe: 'Same as --name' })
          .option('tag-list', { type: 'string', describe: 'Comma-separated tags (RUNNER_TAG_LIST)' })
          .option('run-untagged', { type: 'boolean', describe: 'Also take untagged jobs (REGISTER_RUN_UNTAGGED; forced without tags)' })
          .option('locked', { type: 'boolean', describe: 'Lock to the current project (REGISTER_LOCKED; default true)' })
          .option('paused', { type: 'boolean', describe: 'Register paused (REGISTER_PAUSED)' })
          .option('maintenance-note', { type: 'string', describe: 'Notes for administrators (REGISTER_MAINTENANCE_NOTE)' })
          .option('access-level', { type: 'string', describe: 'not_protected or ref_protected (REGISTER_ACCESS_LEVEL)' })
          .option('maximum-timeout', { type: 'number', describe: 'Maximum job timeout in seconds (REGISTER_MAXIMUM_TIMEOUT)' })
          .option('executor', { type: 'string', describe: 'shell or docker (RUNNER_EXECUTOR)' })
          .option('shell', { type: 'string', describe: 'bash or sh' })
          .option('limit', { type: 'number', describe: 'Jobs this runner may run at once (0: no limit)' })
          .option('docker-image', { type: 'string', describe: 'Default image for docker jobs (DOCKER_IMAGE)' })
          .option('docker-pull-policy', { type: 'string', array: true, describe: 'always, if-not-present or never (repeatable)' }),
      async (args) => {
        const { runRegister } = await import('./commands/runner-register.ts');
        exitCode = await runRegister(
          {
            config: args.config,
            nonInteractive: args['non-interactive'],
            url: args.url,
            registrationToken: args['registration-token'],
            token: args.token,
            name: args.name,
            description: args.description,
            tagList: args['tag-list'],
            runUntagged: args['run-untagged'],
            locked: args.locked,
            paused: args.paused,
            maintenanceNote: args['maintenance-note'],
            accessLevel: args['access-level'],
            maximumTimeout: args['maximum-timeout'],
            executor: args.executor,
            shell: args.shell,
            limit: args.limit,
            dockerImage: args['docker-image'],
            dockerPullPolicy: args['docker-pull-policy'],
          },
          commandIo(),
        );
      },
    )
    .command(
      'verify',
      'Check that the coordinator still knows the configured runners',
      (command) => command.option('config', config).option('delete', { type: 'boolean', describe: 'Remove runners the coordinator no longer knows' }).option('name', { type: 'string' }),
      async (args) => {
        const { runVerify } = await import('./commands/runner-manage.ts');
        exitCode = await runVerify({ config: args.config, delete: args.delete, name: args.name }, commandIo());
      },
    )
    .command(
      'unregister',
      'Unregister runners and remove them from config.toml',
      (command) =>
        command
          .option('config', config)
          .option('name', { type: 'string', describe: 'The runner of this name' })
          .option('url', { type: 'string', describe: 'With --token: a runner by URL and token' })
          .option('token', { type: 'string', nargs: 1 })
          .option('all-runners', { type: 'boolean', describe: 'Every configured runner' }),
      async (args) => {
        const { runUnregister } = await import('./commands/runner-manage.ts');
        exitCode = await runUnregister({ config: args.config, name: args.name, url: args.url, token: args.token, allRunners: args['all-runners'] }, commandIo());
      },
    )
    .command(
      'list',
      'List the configured runners',
      (command) => command.option('config', config),
      async (args) => {
        const { runList } = await import('./commands/runner-manage.ts');
        exitCode = await runList({ config: args.config }, commandIo());
      },
    )
    .command(
      'run',
      'Run the configured runners until SIGQUIT (graceful) or SIGTERM/SIGINT',
      (command) =>
        command
          .option('config', config)
          .option('working-directory', { type: 'string', alias: 'd', describe: 'Where builds/ and cache/ go by default' })
          .option('listen-address', { type: 'string', describe: 'Serve /metrics and /health on host:port (overrides listen_address)' }),
      async (args) => {
        // An idle runner mostly waits on long polls: a small young generation (V8's default grows
        // to 16 MB per semi-space) keeps its RSS low at the cost of more, cheaper scavenges.
        v8.setFlagsFromString('--max-semi-space-size=1');
        v8.setFlagsFromString('--semi-space-growth-factor=1');
        const { runRun } = await import('./commands/runner-run.ts');
        exitCode = await runRun({ config: args.config, workingDirectory: args['working-directory'], listenAddress: args['listen-address'] }, commandIo());
      },
    )
    .command(
      'run-single',
      'Run one runner given by flags, without a config file',
      (command) =>
        command
          .option('url', { type: 'string', describe: 'Coordinator URL (CI_SERVER_URL)' })
          .option('token', { type: 'string', nargs: 1, describe: 'Runner token (CI_SERVER_TOKEN)' })
          .option('name', { type: 'string' })
          .option('executor', { type: 'string', describe: 'shell or docker (RUNNER_EXECUTOR)' })
          .option('shell', { type: 'string', describe: 'bash or sh' })
          .option('builds-dir', { type: 'string' })
          .option('cache-dir', { type: 'string' })
          .option('output-limit', { type: 'number', describe: 'KiB (default 4096)' })
          .option('docker-image', { type: 'string' })
          .option('docker-pull-policy', { type: 'string', array: true })
          .option('max-builds', { type: 'number', describe: 'Exit after this many jobs' })
          .option('working-directory', { type: 'string', alias: 'd' })
          .option('listen-address', { type: 'string', describe: 'Serve /metrics and /health on host:port' }),
      async (args) => {
        const { runSingle } = await import('./commands/runner-run.ts');
        exitCode = await runSingle(
          {
            url: args.url,
            token: args.token,
            name: args.name,
            executor: args.executor,
            shell: args.shell,
            buildsDir: args['builds-dir'],
            cacheDir: args['cache-dir'],
            outputLimit: args['output-limit'],
            dockerImage: args['docker-image'],
            dockerPullPolicy: args['docker-pull-policy'],
            maxBuilds: args['max-builds'],
            workingDirectory: args['working-directory'],
            listenAddress: args['listen-address'],
          },
          commandIo(),
        );
      },
    )
    .command(
      'lint [file]',
      'Compile a CI file and print its stages and jobs, or its diagnostics (exit 1 on errors)',
      (command) =>
        command
          .positional('file', { type: 'string', describe: 'CI file (default .gitlab-ci.yml)' })
          .option('ref', { type: 'string', describe: 'Branch to evaluate rules for (default main)' })
          .option('tag', { type: 'string', describe: 'Evaluate rules as for this tag' })
          .option('variable', { type: 'string', array: true, nargs: 1, describe: 'KEY=VALUE, repeatable' })
          .option('env-file', { type: 'string', array: true, nargs: 1, describe: 'A dotenv file of pipeline variables, repeatable (--variable wins)' })
          .option('input', { type: 'string', array: true, nargs: 1, describe: 'NAME=VALUE for the CI file\'s spec:inputs, repeatable (read as the input\'s type)' })
          .option('json', { type: 'boolean', default: false, describe: 'Machine-readable output' }),
      async (args) => {
        const { runLint } = await import('./commands/lint.ts');
        exitCode = await runLint(args, {
          stdout: (text) => process.stdout.write(text),
          stderr: (text) => process.stderr.write(text),
          cwd: process.cwd(),
        });
      },
    )
    .command('exec [jobs..]', EXEC_DESCRIPTION, execOptions, async (args) => {
      exitCode = await (await execMainModule()).runExecArgs(args);
    })
    .demandCommand(1, 'Name a command')
    .strict()
    .fail(false)
    .help()
    .parseAsync();
  return exitCode;
}

/** Every error is one clear line. */
function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// yargs' hideBin for Node: the arguments after node and the script.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`runner: ${describeError(error)}\n`);
    process.exit(1);
  },
);
