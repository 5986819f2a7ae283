/**
 * Git storage figures on a generated repository of 50,000 commits and 20,000 files (made with
 * git fast-import): first page of commits, one file read and a recursive tree through the
 * module, each against the git CLI doing the same; then the same through the HTTP API of an
 * in-process coordinator and a clone over our git HTTP against a local `--no-local` clone.
 * The API part is skipped, with a note, while its routes answer 404.
 * Prints one JSON line of figures (milliseconds, medians).
 * Run: node --import tsx bench/repository.ts [commits] [files]
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from '#deps/execa';
import { createCoordinator, type Coordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { createRepositoryManager } from '../src/storage/git/index.ts';

const COMMITS = Number(process.argv[2] ?? 50_000);
const FILES = Number(process.argv[3] ?? 20_000);
const FILES_PER_DIRECTORY = 100;
const RUNS = 30;
const ROOT_TOKEN = 'bench-root-token-0123456789';
const GIT_ENV = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' };

const filePath = (index: number): string => `dir-${String(Math.floor(index / FILES_PER_DIRECTORY)).padStart(3, '0')}/file-${String(index).padStart(5, '0')}.txt`;

/** Streams a fast-import script: one commit adding every file, then one-file edits round-robin. */
async function generate(gitDir: string): Promise<void> {
  const importer = execa('git', [`--git-dir=${gitDir}`, 'fast-import', '--quiet'], { stdin: 'pipe', env: GIT_ENV });
  const write = (text: string): Promise<void> =>
    new Promise((resolve) => {
      if (importer.stdin.write(text)) resolve();
      else importer.stdin.once('drain', resolve);
    });
  const start = Date.UTC(2020, 0, 1) / 1000;
  for (let commit = 0; commit < COMMITS; commit += 1) {
    const message = `Change ${commit}\n\nGenerated for the repository bench.\n`;
    let text = `commit refs/heads/main\nmark :${commit + 1}\n`;
    text += `author Bench Author <bench${commit % 7}@example.com> ${start + commit * 60} +0000\n`;
    text += `committer Bench Author <bench${commit % 7}@example.com> ${start + commit * 60} +0000\n`;
    text += `data ${Buffer.byteLength(message)}\n${message}\n`;
    if (commit > 0) text += `from :${commit}\n`;
    if (commit === 0) {
      for (let file = 0; file < FILES; file += 1) {
        const content = `file ${file}\nline two\n`;
        text += `M 100644 inline ${filePath(file)}\ndata ${Buffer.byteLength(content)}\n${content}\n`;
      }
    } else {
      const content = `file ${commit % FILES} edited in commit ${commit}\nline two\n`;
      text += `M 100644 inline ${filePath(commit % FILES)}\ndata ${Buffer.byteLength(content)}\n${content}\n`;
    }
    await write(text);
  }
  importer.stdin.end();
  await importer;
}

async function median(run: () => Promise<unknown>, runs = RUNS): Promise<number> {
  for (let warmup = 0; warmup < 3; warmup += 1) await run();
  const times: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]! * 100) / 100;
}

const gitCli = (gitDir: string, args: string[]) => () => execa('git', [`--git-dir=${gitDir}`, ...args], { env: GIT_ENV, stripFinalNewline: false });

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-repository-'));
  const figures: Record<string, number | string> = { commits: COMMITS, files: FILES };
  try {
    const manager = createRepositoryManager({ root: path.join(work, 'repositories'), logger: silentLogger() });
    await manager.create(1, { initializeWithReadme: false, defaultBranch: 'main', projectName: 'bench', author: { name: 'Bench', email: 'bench@example.com' } });
    const repository = manager.open(1);
    const started = performance.now();
    await generate(repository.path);
    figures.generate_ms = Math.round(performance.now() - started);
    // What the coordinator does after a push lands: gc (bitmap) and a commit-graph.
    const housekeeping = performance.now();
    await manager.runHousekeeping(1, { gc: true });
    figures.housekeeping_ms = Math.round(performance.now() - housekeeping);
    const probe = filePath(Math.floor(FILES / 2));

    // Warm: the same first page again (its commit ids and count are cached, as for a busy branch).
    figures.module_commits_page_ms = await median(() => repository.log({ offset: 0, limit: 20 }));
    // Cold: each run starts from a commit no earlier run walked from, so nothing is cached.
    const starts = (await execa('git', [`--git-dir=${repository.path}`, 'rev-list', '--max-count=200', 'main'], { env: GIT_ENV })).stdout.split('\n');
    const coldStart = (offset: number) => {
      let next = offset;
      return () => starts[next++]!;
    };
    const moduleStart = coldStart(100);
    figures.module_commits_page_cold_ms = await median(() => repository.log({ ref: moduleStart(), offset: 0, limit: 20 }));
    figures.cli_log_n20_ms = await median(gitCli(repository.path, ['log', '-n', '20', 'main']));
    figures.module_file_read_ms = await median(async () => {
      const blob = await repository.blobAt('main', probe);
      return repository.readBlob(blob!.id);
    });
    figures.cli_show_file_ms = await median(gitCli(repository.path, ['show', `main:${probe}`]));
    figures.module_tree_recursive_ms = await median(() => repository.tree('main', '', true), 10);
    figures.cli_ls_tree_r_ms = await median(gitCli(repository.path, ['ls-tree', '-r', 'main']), 10);
    figures.module_count_commits_ms = await median(() => repository.countCommits({}), 5);
    const countStart = coldStart(150);
    figures.module_count_commits_cold_ms = await median(() => repository.countCommits({ ref: countStart() }), 10);
    figures.module_log_path_page_ms = await median(() => repository.log({ path: probe, offset: 0, limit: 20 }), 5);
    await manager.close();

    await measureApi(work, repository.path, probe, figures, coldStart(1));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  console.log(JSON.stringify(figures));
}

async function measureApi(work: string, generated: string, probe: string, figures: Record<string, number | string>, coldStart: () => string): Promise<void> {
  let coordinator: Coordinator | null = null;
  try {
    coordinator = await createCoordinator({ dataDir: path.join(work, 'coordinator'), databaseUrl: ':memory:', rootToken: ROOT_TOKEN, logger: silentLogger() });
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = coordinator.app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    const headers = { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' };
    const created = await fetch(`${base}/api/v4/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench', initialize_with_readme: false }) });
    if (created.status !== 201) {
      figures.api_note = `skipped: POST /api/v4/projects answered ${created.status}`;
      return;
    }
    const project = (await created.json()) as { id: number; path_with_namespace: string };
    // Swap the project's repository for the generated one.
    const target = coordinator.context.repositories.open(project.id).path;
    await coordinator.context.repositories.remove(project.id);
    await cp(generated, target, { recursive: true });

    const api = (route: string) => async () => {
      const response = await fetch(`${base}/api/v4/projects/${project.id}${route}`, { headers });
      if (response.status !== 200) throw new Error(`${route}: ${response.status}`);
      return response.arrayBuffer();
    };
    const routes: Array<[string, string]> = [
      ['api_commits_page_ms', '/repository/commits?per_page=20'],
      ['api_file_raw_ms', `/repository/files/${encodeURIComponent(probe)}/raw?ref=main`],
      ['api_tree_recursive_page_ms', '/repository/tree?recursive=true&per_page=100'],
    ];
    for (const [name, route] of routes) {
      const probeResponse = await fetch(`${base}/api/v4/projects/${project.id}${route}`, { headers });
      if (probeResponse.status === 404) {
        figures[name] = `skipped: ${route.split('?')[0]} answered 404`;
        continue;
      }
      figures[name] = await median(api(route));
    }
    figures.api_commits_page_cold_ms = await median(async () => api(`/repository/commits?per_page=20&ref_name=${coldStart()}`)());
    figures.api_vs_cli_commits = ratio(figures.api_commits_page_ms, figures.cli_log_n20_ms);
    figures.api_vs_cli_commits_cold = ratio(figures.api_commits_page_cold_ms, figures.cli_log_n20_ms);
    figures.api_vs_cli_file = ratio(figures.api_file_raw_ms, figures.cli_show_file_ms);

    const cloneUrl = `http://root:${ROOT_TOKEN}@127.0.0.1:${port}/${project.path_with_namespace}.git`;
    const info = await fetch(`${base}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}` } });
    if (info.status === 404) {
      figures.http_clone_ms = 'skipped: git over HTTP answered 404';
      return;
    }
    const clone = (source: string, extra: string[]) => async () => {
      const destination = path.join(work, `clone-${Math.random().toString(36).slice(2)}`);
      await execa('git', ['clone', '--bare', '--quiet', ...extra, source, destination], { env: { ...GIT_ENV, GIT_TERMINAL_PROMPT: '0' } });
      await rm(destination, { recursive: true, force: true });
    };
    figures.http_clone_ms = await median(clone(cloneUrl, []), 3);
    figures.local_clone_no_local_ms = await median(clone(generated, ['--no-local']), 3);
    figures.http_vs_local_clone = ratio(figures.http_clone_ms, figures.local_clone_no_local_ms);
  } catch (error) {
    figures.api_note = `failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await coordinator?.close();
  }
}

function ratio(a: number | string | undefined, b: number | string | undefined): number | string {
  return typeof a === 'number' && typeof b === 'number' ? Math.round((a / b) * 100) / 100 : 'n/a';
}

await main();
