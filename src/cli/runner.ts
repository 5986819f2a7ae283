import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { GANTRY_VERSION } from '../shared/version.ts';

/** `runner` command line: the agent's commands arrive with the runner issue; lint and help work now. */
export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  await yargs(argv)
    .scriptName('runner')
    .usage('$0 <command> [options]\n\nGantry runner: registers with a coordinator, polls for jobs and runs them.')
    .command(
      'lint [file]',
      'Compile a CI file and print its stages and jobs, or its diagnostics (exit 1 on errors)',
      (command) =>
        command
          .positional('file', { type: 'string', describe: 'CI file (default .gitlab-ci.yml)' })
          .option('ref', { type: 'string', describe: 'Branch to evaluate rules for (default main)' })
          .option('tag', { type: 'string', describe: 'Evaluate rules as for this tag' })
          .option('variable', { type: 'string', array: true, describe: 'KEY=VALUE, repeatable' })
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
    .demandCommand(1, 'Name a command')
    .strict()
    .fail(false)
    .version(GANTRY_VERSION)
    .help()
    .parseAsync();
  return exitCode;
}

main(hideBin(process.argv)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`runner: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
