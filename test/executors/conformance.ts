/**
 * The executor conformance suite: what every executor (fake, shell, docker) must do behind
 * the contract of src/executors/types.ts. Scripts stay within what the fake's mini-shell
 * understands unless a capability says otherwise.
 */
import assert from 'node:assert/strict';
import { describe, it, after } from 'node:test';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import type { Environment, Executor, PrepareRequest, RunRequest, ScriptShell } from '../../src/executors/types.ts';
import { within } from '../helpers/bounded.ts';

/**
 * How long one script may take before the test fails instead of waiting: starting a container
 * on a busy machine takes seconds, none of these scripts runs for long.
 */
export const RUN_BOUND_MS = 120_000;
/** After an abort: well past the kill grace (1 s), well short of the 30 s the aborted scripts sleep. */
const ABORT_BOUND_MS = 15_000;

export interface ConformanceTarget {
  executor: Executor;
  shell: ScriptShell;
  /** The executor runs real shells: stderr, pipes and child processes. */
  realShell: boolean;
  image?: string;
  /**
   * Checks that nothing of the job is left after cleanup (docker: containers, networks,
   * volumes; shell: no process the script started, shared builds kept; fake: its sandbox).
   * `marker`: a command line the job's script left running in the background (real shells).
   */
  assertNothingLeft: (job: { jobId: number; environment: Environment; marker: string | null }) => Promise<void>;
}

let nextJobId = Math.floor(Date.now() % 1_000_000) * 10;

export function prepareRequest(target: Omit<ConformanceTarget, 'assertNothingLeft'>, overrides: Partial<PrepareRequest> = {}): PrepareRequest {
  return {
    jobId: ++nextJobId,
    projectId: 7,
    projectPath: 'group/project',
    shortToken: 'conform1',
    concurrentId: 0,
    concurrentProjectId: 0,
    image: target.image ? { name: target.image } : null,
    services: [],
    serviceVariables: {},
    credentials: [],
    log: () => undefined,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Runs `script`; a run that has not ended within `boundMs` fails the test (whatever it was waiting for). */
export async function runCollect(
  environment: Environment,
  script: string,
  shell: ScriptShell,
  signal = new AbortController().signal,
  boundMs = RUN_BOUND_MS,
): Promise<{ exitCode: number; output: string }> {
  const chunks: Buffer[] = [];
  const request: RunRequest = { stage: 'step_script', kind: 'user', shell, script, onOutput: (chunk) => chunks.push(chunk), signal };
  const { exitCode } = await within(environment.run(request), boundMs, `the script ${JSON.stringify(script.slice(0, 60))}`);
  return { exitCode, output: Buffer.concat(chunks).toString('utf8') };
}

/**
 * A command line no other process is likely to have, `sleep <seconds>` with seconds taken from
 * the job id, which a real shell's script starts in the background.
 */
export function backgroundMarker(jobId: number): string {
  return `sleep ${1_000 + (jobId % 9_000)}`;
}

/** Waits until the run has printed `text`; fails (naming it) after `boundMs`. */
async function waitForOutput(chunks: readonly Buffer[], text: string, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!Buffer.concat(chunks).toString('utf8').includes(text)) {
    if (Date.now() > deadline) assert.fail(`the script never printed ${JSON.stringify(text)} (${boundMs} ms)`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function tarOf(files: Record<string, string>, extra: (pack: tar.Pack) => void = () => undefined): Readable {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name, mode: 0o644 }, content);
  extra(pack);
  pack.finalize();
  return pack as unknown as Readable;
}

async function tarEntries(stream: Readable): Promise<Record<string, string>> {
  const extract = tar.extract();
  const files: Record<string, string> = {};
  stream.pipe(extract as unknown as NodeJS.WritableStream);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    files[entry.header.name] = entry.header.type === 'directory' ? '<dir>' : Buffer.concat(chunks).toString('utf8');
  }
  return files;
}

export function executorConformance(name: string, capabilities: { realShell: boolean }, makeTarget: () => Promise<ConformanceTarget>): void {
  describe(`executor conformance: ${name}`, () => {
    let target: ConformanceTarget;
    const environments: Environment[] = [];
    const prepared = async (overrides: Partial<PrepareRequest> = {}): Promise<Environment> => {
      target ??= await makeTarget();
      const environment = await target.executor.prepare(prepareRequest(target, overrides));
      environments.push(environment);
      return environment;
    };
    after(async () => {
      for (const environment of environments) await environment.cleanup();
    });

    it('prepares an environment whose project directory lies in its builds directory', async () => {
      const environment = await prepared();
      assert.ok(environment.info.projectDir.startsWith(`${environment.info.buildsDir}/`), environment.info.projectDir);
      assert.ok(environment.info.projectDir.endsWith('/group/project'));
      assert.ok(environment.info.runningOn.length > 0);
    });

    it('runs a script and streams its output', async () => {
      const environment = await prepared();
      const result = await runCollect(environment, 'echo hello\necho world', target.shell);
      assert.deepEqual(result, { exitCode: 0, output: 'hello\nworld\n' });
    });

    it('reports the exit code of a failing script without rejecting', async () => {
      const environment = await prepared();
      const result = await runCollect(environment, 'echo before\nexit 3\necho after', target.shell);
      assert.deepEqual(result, { exitCode: 3, output: 'before\n' });
    });

    it('copies files in, where scripts see them', async () => {
      const environment = await prepared();
      const directory = environment.info.projectDir;
      await environment.copyIn(tarOf({ 'sub/in.txt': 'copied in\n' }), directory);
      const result = await runCollect(environment, `cat ${directory}/sub/in.txt`, target.shell);
      assert.deepEqual(result, { exitCode: 0, output: 'copied in\n' });
    });

    it('copies files a script wrote out, named relative to the directory', async () => {
      const environment = await prepared();
      const directory = environment.info.projectDir;
      await runCollect(environment, `mkdir -p ${directory}/out\necho produced > ${directory}/out/result.txt`, target.shell);
      const stream = await environment.copyOut(directory);
      assert.ok(stream);
      const files = await tarEntries(stream);
      assert.equal(files['out/result.txt'], 'produced\n');
      assert.ok(!Object.keys(files).some((entry) => entry.startsWith('/') || entry.startsWith('project/')), Object.keys(files).join(','));
    });

    it('answers null when copying out a directory that does not exist', async () => {
      const environment = await prepared();
      assert.equal(await environment.copyOut(`${environment.info.buildsDir}/no/such/dir`), null);
    });

    it('refuses an archive entry that leaves the destination, keeps a symlink that points outside as a link, and writes nothing through one', async () => {
      const environment = await prepared();
      const directory = environment.info.projectDir;
      await assert.rejects(environment.copyIn(tarOf({ '../escaped.txt': 'x' }), directory), /leaves the destination/);
      // As gitlab-runner: a link is unpacked whatever it points at (a virtualenv's bin/python → /usr/bin/python3).
      await environment.copyIn(tarOf({}, (pack) => pack.entry({ name: 'venv/python', type: 'symlink', linkname: '/usr/bin/python3' })), directory);
      if (capabilities.realShell) {
        const link = await runCollect(environment, `readlink ${directory}/venv/python`, target.shell);
        assert.equal(link.output, '/usr/bin/python3\n');
      }
      const through = tarOf({}, (pack) => {
        pack.entry({ name: 'link', type: 'symlink', linkname: '../../../escaped-dir' });
        pack.entry({ name: 'link/file.txt', mode: 0o644 }, 'x');
      });
      await assert.rejects(environment.copyIn(through, directory), /leaves the destination/);
      const check = await runCollect(environment, `cat ${directory}/../escaped.txt`, target.shell);
      assert.notEqual(check.exitCode, 0);
      const escaped = await runCollect(environment, `cat ${directory}/../../../escaped-dir/file.txt`, target.shell);
      assert.notEqual(escaped.exitCode, 0);
    });

    it('an abort ends a running script, background processes included', async () => {
      const environment = await prepared();
      const controller = new AbortController();
      // A background sleep holds the output open: only a kill of the whole tree ends the run before it.
      const script = target.realShell ? 'echo started\nsleep 30 &\nsleep 30\necho not-reached' : 'echo started\nsleep 30\necho not-reached';
      const chunks: Buffer[] = [];
      const run = environment.run({ stage: 'step_script', kind: 'user', shell: target.shell, script, onOutput: (chunk) => chunks.push(chunk), signal: controller.signal });
      // Abort once the script runs (starting a container may itself take seconds).
      await waitForOutput(chunks, 'started\n', RUN_BOUND_MS);
      controller.abort();
      const { exitCode } = await within(run, ABORT_BOUND_MS, 'the run after an abort (the kill did not reach every process of the script)');
      assert.notEqual(exitCode, 0);
      assert.ok(!Buffer.concat(chunks).toString('utf8').includes('not-reached'));
    });

    if (capabilities.realShell) it('keeps the order of stdout and stderr', async () => {
      const environment = await prepared();
      const result = await runCollect(environment, 'echo one\necho two 1>&2\necho three', target.shell);
      assert.equal(result.output, 'one\ntwo\nthree\n');
    });

    it('cleans up everything, and a second cleanup is harmless', async () => {
      const request = prepareRequest((target ??= await makeTarget()));
      const environment = await target.executor.prepare(request);
      const marker = capabilities.realShell ? backgroundMarker(request.jobId) : null;
      // The background process does not hold the output: the stage ends, the process must not outlive the job.
      const script = marker ? `${marker} >/dev/null 2>&1 &\necho hi` : 'echo hi';
      assert.deepEqual(await runCollect(environment, script, target.shell), { exitCode: 0, output: 'hi\n' });
      await environment.cleanup();
      await environment.cleanup();
      await target.assertNothingLeft({ jobId: request.jobId, environment, marker });
    });
  });
}
