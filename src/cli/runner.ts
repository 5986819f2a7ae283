import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';

/** `runner` command line: the agent's commands arrive with the runner issue; lint and help work now. */
export async function main(argv: string[]): Promise<number> {
  const exitCode = 0;
  await yargs(argv)
    .scriptName('runner')
    .usage('$0 <command> [options]\n\nGantry runner: registers with a coordinator, polls for jobs and runs them.')
    .demandCommand(1, 'Name a command')
    .strict()
    .fail(false)
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
