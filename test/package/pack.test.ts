import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { withinOrKill } from '../helpers/bounded.ts';
import { packGantry, REPOSITORY_ROOT, scratchProjectWith, type PackedPackage } from './scratch-project.ts';

const run = promisify(execFile);

describe('the packed npm package', () => {
  const destination = mkdtempSync(path.join(tmpdir(), 'gantry-pack-'));
  let packed: PackedPackage;
  let project: string;

  before(() => {
    packed = packGantry(destination);
    project = scratchProjectWith(packed.tarball);
  });
  after(() => {
    rmSync(destination, { recursive: true, force: true });
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('ships compiled JavaScript, declarations, the CLIs, README, example config and license — no tests or sources', () => {
    for (const expected of ['dist/index.js', 'dist/index.d.ts', 'dist/cli/coordinator.js', 'bin/coordinator', 'bin/runner', 'README.md', 'LICENSE', 'config.example.toml', 'package.json']) {
      assert.ok(packed.files.includes(expected), `${expected} is in the package`);
    }
    assert.deepEqual(packed.files.filter((file) => file.startsWith('test/') || file.startsWith('src/') || file.endsWith('.ts') && !file.endsWith('.d.ts')), []);
  });

  it('embeds with plain node: import { createCoordinator } from "gantry" serves the API', async () => {
    writeFileSync(
      path.join(project, 'embed.mjs'),
      `import { createCoordinator } from 'gantry';
const coordinator = await createCoordinator({ dataDir: process.argv[2], databaseUrl: ':memory:', rootToken: 'scratch-token' });
const address = await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
const response = await fetch(address + '/api/v4/version', { headers: { 'PRIVATE-TOKEN': 'scratch-token' } });
console.log(JSON.stringify({ status: response.status, body: await response.json() }));
await coordinator.close();
`,
    );
    const { stdout } = await run(process.execPath, ['embed.mjs', path.join(project, 'data')], { cwd: project });
    const result = JSON.parse(stdout) as { status: number; body: { version: string } };
    assert.equal(result.status, 200);
    assert.match(result.body.version, /gantry/);
  });

  it('runs the installed CLIs with plain node', async () => {
    const version = (JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(path.join(REPOSITORY_ROOT, 'package.json'), 'utf8'))) as { version: string }).version;
    const coordinator = await run(process.execPath, ['node_modules/gantry/bin/coordinator', '--version'], { cwd: project });
    assert.equal(coordinator.stdout.trim(), version);
    const runner = await run(process.execPath, ['node_modules/gantry/bin/runner', '--help'], { cwd: project });
    assert.match(runner.stdout, /lint/);
  });

  it('runs the embedding examples of docs/embedding.md and the README as written, with plain node', async () => {
    const jsBlocks = (file: string) => [...readFileSync(path.join(REPOSITORY_ROOT, file), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!);
    const examples = jsBlocks('docs/embedding.md');
    assert.equal(examples.length, 2, 'the standalone and the plugin example');
    const [standalone, plugin] = examples as [string, string];
    assert.deepEqual(jsBlocks('README.md'), [plugin], "the README's tour embeds with the plugin example");

    const alone = await runExample(project, 'standalone.mjs', standalone, async (port) => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v4/version`);
      return { status: response.status, body: await response.json() };
    });
    assert.deepEqual(alone, { status: 401, body: { message: '401 Unauthorized' } });

    const mounted = await runExample(project, 'plugin.mjs', plugin, async (port) => {
      const site = await fetch(`http://127.0.0.1:${port}/`);
      const api = await fetch(`http://127.0.0.1:${port}/ci/api/v4/version`, { headers: { 'PRIVATE-TOKEN': 'readme-root-token' } });
      const unknown = await fetch(`http://127.0.0.1:${port}/elsewhere`);
      return { site: await site.text(), api: api.status, hostNotFound: ((await unknown.json()) as { error?: string }).error };
    });
    assert.deepEqual(mounted, { site: 'my site', api: 200, hostNotFound: 'Not Found' });
  });

  it('gives TypeScript consumers real types', async () => {
    writeFileSync(
      path.join(project, 'consumer.ts'),
      `import { createCoordinator, compilePipeline, type CoordinatorOptions } from 'gantry';
const options: CoordinatorOptions = { dataDir: './data' };
// @ts-expect-error dataDir is a string: this line only compiles if the declarations are missing
const wrong: CoordinatorOptions = { dataDir: 42 };
export async function start(): Promise<string> {
  const coordinator = await createCoordinator(options);
  void compilePipeline;
  void wrong;
  return coordinator.app.listen({ port: 0 });
}
`,
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] }, files: ['consumer.ts'] }),
    );
    const tsc = path.join(REPOSITORY_ROOT, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project });
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Runs an example until `probe` gets answers from the server it starts, then stops it. */
async function runExample<T>(project: string, file: string, code: string, probe: (port: number) => Promise<T>): Promise<T> {
  writeFileSync(path.join(project, file), code);
  const port = await freePort();
  const child = spawn(process.execPath, [file], { cwd: project, env: { ...process.env, PORT: String(port), GANTRY_ROOT_TOKEN: 'readme-root-token' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (let attempt = 0; attempt < 300; attempt += 1) {
      if (child.exitCode !== null) throw new Error(`${file} exited (${child.exitCode}): ${output}`);
      try {
        return await probe(port);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new Error(`${file} never answered: ${output}`);
  } finally {
    child.kill('SIGTERM');
    await withinOrKill(child, exited, 60_000, `${file} exiting after SIGTERM`);
  }
}
