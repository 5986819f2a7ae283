/**
 * `runner exec`'s flags, shared by its own parser (exec-main.ts) and `runner`'s command list;
 * no other module is loaded for them.
 */
import type { Argv } from 'yargs';

export const EXEC_DESCRIPTION = 'Run the pipeline of the working tree (uncommitted and untracked files included) on an in-process coordinator and runner';

/** A repeatable flag takes one value each time (`nargs: 1`): a job name after `--variable A=1` is a job name. */
export function execOptions<T>(command: Argv<T>) {
  return command
    .positional('jobs', { type: 'string', array: true, describe: 'Jobs to run (default: the whole pipeline)' })
    .option('cwd', { type: 'string', describe: 'Start in this directory (a working tree or a directory in it) instead of the current one' })
    .option('file', { type: 'string', describe: 'CI file (default .gitlab-ci.yml at the top of the tree)' })
    .option('needs', { type: 'boolean', describe: 'Also run what the named jobs need or take artifacts from' })
    .option('stage', { type: 'string', describe: 'Run the jobs of this stage' })
    .option('manual', { type: 'string', array: true, nargs: 1, describe: 'Play this manual job when it is reached (repeatable)' })
    .option('list', { type: 'boolean', describe: 'Print the jobs (stage, when, needs, allow_failure, rules outcome) and stop' })
    .option('preview', { type: 'boolean', describe: 'Print the merged configuration and stop' })
    .option('payload', { type: 'string', describe: 'Print the payload a runner receives for this job and stop' })
    .option('json', { type: 'boolean', describe: 'Machine-readable output on stdout (job logs go to stderr)' })
    .option('committed', { type: 'boolean', describe: 'Run HEAD as committed, without the working tree\'s changes' })
    .option('ref', { type: 'string', describe: 'Branch the pipeline runs for (default: the current branch)' })
    .option('tag', { type: 'string', describe: 'Run the pipeline as for this tag' })
    .option('source', { type: 'string', describe: 'CI_PIPELINE_SOURCE (default push)' })
    .option('variable', { type: 'string', array: true, nargs: 1, describe: 'KEY=VALUE, repeatable' })
    .option('input', { type: 'string', array: true, nargs: 1, describe: 'NAME=VALUE for the CI file\'s spec:inputs, repeatable (read as the input\'s type)' })
    .option('env-file', { type: 'string', array: true, nargs: 1, describe: 'A dotenv file of pipeline variables, repeatable (--variable wins)' })
    .option('project', { type: 'string', array: true, nargs: 1, describe: 'PATH=DIR: the working tree DIR as the project PATH (include:project, trigger:project), repeatable' })
    .option('executor', { type: 'string', describe: 'shell (default) or docker' })
    .option('docker-image', { type: 'string', describe: 'Image of docker jobs without image:' })
    .option('concurrency', { type: 'number', describe: 'Jobs at once (default: the number of cores)' })
    .option('verbose', { type: 'boolean', describe: 'Print the runner\'s sections whole (sources, cache, artifacts), not only their header line' })
    .option('shell-on-failure', { type: 'boolean', describe: 'When a job fails, open a shell in its build directory (docker: its container) with its variables before cleanup' })
    .option('artifacts-dir', { type: 'string', describe: 'Where each job\'s artifacts are unpacked, <dir>/<job>/ (default .gantry/artifacts)' })
    .option('cache-dir', { type: 'string', describe: 'Where the jobs\' caches are kept across runs (default .gantry/cache)' })
    .option('reuse', { type: 'boolean', describe: 'Reuse the artifacts and status of jobs whose definition, variables and input files are unchanged since their last success' });
}

export type ExecCliArgs = Awaited<ReturnType<typeof execOptions>['argv']>;
