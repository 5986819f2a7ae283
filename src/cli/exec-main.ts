/**
 * `runner exec`'s command line and everything it runs: the entry of the one-file bundle
 * scripts/bundle-exec.mjs makes (yargs included), which runner.ts loads for `runner exec`
 * before any other module of the CLI.
 */
import yargs from 'yargs';
import { closeSharedSpawner } from '../shared/process-spawner.ts';
import { runExecCommand } from './commands/exec.ts';
import { EXEC_DESCRIPTION, execOptions, type ExecCliArgs } from './exec-options.ts';

/** The parsed flags run, on this process's stdio and directory. */
export async function runExecArgs(args: ExecCliArgs): Promise<number> {
  // A reader that goes away (`runner exec | head`) makes the writes fail: the run stops and cleans up, as on Ctrl-C.
  const outputClosed = new AbortController();
  const onOutputError = (error: Error) => outputClosed.abort(error);
  process.stdout.on('error', onOutputError);
  process.stderr.on('error', onOutputError);
  try {
    return await runExecCommand(
      {
        jobs: args.jobs, cwd: args.cwd, file: args.file, needs: args.needs, stage: args.stage, manual: args.manual, list: args.list, preview: args.preview,
        payload: args.payload, json: args.json, committed: args.committed, ref: args.ref, tag: args.tag, source: args.source,
        variable: args.variable, envFile: args['env-file'], input: args.input, project: args.project, executor: args.executor, dockerImage: args['docker-image'], concurrency: args.concurrency,
        verbose: args.verbose, shellOnFailure: args['shell-on-failure'], artifactsDir: args['artifacts-dir'], cacheDir: args['cache-dir'], reuse: args.reuse,
      },
      {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
        cwd: process.cwd(),
        colour: process.stdout.isTTY === true && !process.env.NO_COLOR,
        tty: process.stdout.isTTY === true,
        outputClosed: outputClosed.signal,
      },
    );
  } finally {
    // The spawner's helper waited for: its git and shell processes' CPU time is then this process's children's.
    await closeSharedSpawner();
  }
}

/**
 * `runner exec` parsed as the default command of a parser of its own: yargs builds the whole
 * help text of a named command after running its handler, in case it is shown later (never
 * here), which cost every run 0.07–0.2 s of CPU in profiles; the default command skips that.
 */
export async function execMain(argv: string[]): Promise<number> {
  let exitCode = 0;
  await yargs(argv)
    .scriptName('runner exec')
    .command('$0 [jobs..]', EXEC_DESCRIPTION, execOptions, async (args) => {
      exitCode = await runExecArgs(args);
    })
    .version(false)
    .strict()
    .fail(false)
    .help()
    .parseAsync();
  return exitCode;
}
