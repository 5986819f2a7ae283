import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/shared/logger.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

interface Entry {
  mode: string;
  name: string;
  id: string;
}

/**
 * Trees pushed before fsck was on, written with git plumbing straight into the project's bare
 * repository: `hash-object --literally` takes tree bytes git itself would refuse to build.
 */
class Plumbing {
  constructor(private readonly gitDir: string) {}

  git(args: string[], input?: string | Buffer): string {
    return execFileSync('git', [`--git-dir=${this.gitDir}`, ...args], {
      input,
      env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' },
    }).toString('utf8').trim();
  }

  blob(content: string): string {
    return this.git(['hash-object', '-w', '--stdin'], content);
  }

  tree(entries: Entry[]): string {
    return this.rawTree(Buffer.concat(entries.map((entry) => Buffer.concat([Buffer.from(`${entry.mode} ${entry.name}\0`), Buffer.from(entry.id, 'hex')]))));
  }

  rawTree(bytes: Buffer): string {
    return this.git(['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], bytes);
  }

  /** A commit of `tree` on top of main, on branch `name`. */
  branch(name: string, tree: string): string {
    const parent = this.git(['rev-parse', 'refs/heads/main']);
    const commit = this.git(['commit-tree', tree, '-p', parent, '-m', `bad tree ${name}`]);
    this.git(['update-ref', `refs/heads/${name}`, commit]);
    return commit;
  }
}

/** Dangerous entry names at the top of the tree, each on a branch of its own. */
const DANGEROUS_NAMES: Record<string, string> = {
  'dot-git': '.git',
  'upper-git': '.GIT',
  'dot-dot': '..',
  dot: '.',
  'ntfs-short': 'git~1',
  'ntfs-trailing': '.git. ',
  hfs: '.g\u200cit',
};

describe('reads of trees with dangerous entries', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let plumbing: Plumbing;
  const logs: Array<Record<string, unknown>> = [];
  const api = (url: string) => gantry.api('GET', `/projects/${projectId}/repository${url}`, { token: null });

  before(async () => {
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) } });
    gantry = await startTestCoordinator({ extra: { logger } });
    const group = await makeGroup(gantry, 'pushed', { visibility: 'public' });
    projectId = (await makeProjectWithRepository(gantry, group.id, 'old', { visibility: 'public', withReadme: true })).id;
    plumbing = new Plumbing(path.join(gantry.dataDir, 'repositories', `${projectId}.git`));
    const readme = plumbing.blob('# old\n');
    const config = plumbing.blob('[core]\n\tfsmonitor = "touch /tmp/pwned"\n');
    const inner = plumbing.tree([{ mode: '100644', name: 'config', id: config }]);
    for (const [branch, name] of Object.entries(DANGEROUS_NAMES)) {
      plumbing.branch(branch, plumbing.tree([{ mode: '100644', name: 'README.md', id: readme }, { mode: '40000', name, id: inner }]));
    }
    const nested = plumbing.tree([{ mode: '40000', name: '.git', id: inner }]);
    plumbing.branch('nested', plumbing.tree([{ mode: '100644', name: 'README.md', id: readme }, { mode: '40000', name: 'a', id: nested }]));
    // A tree entry cut short: git itself fails on it ("too-short tree object").
    const corrupt = plumbing.rawTree(Buffer.concat([Buffer.from('100644 x\0'), Buffer.from(config, 'hex').subarray(0, 7)]));
    plumbing.branch('corrupt', plumbing.tree([{ mode: '100644', name: 'README.md', id: readme }, { mode: '40000', name: 'broken', id: corrupt }]));
  });

  after(async () => {
    await gantry?.close();
  });

  /** 422 with a GitLab `{"message": ...}` body naming the problem. */
  function assertRefused(response: Awaited<ReturnType<typeof api>>, label: string): void {
    assert.equal(response.status, 422, `${label}: ${response.status} ${response.text.slice(0, 200)}`);
    assert.match(String(response.json.message), /^422 Unprocessable Entity - the repository holds content git refuses to serve: /, label);
  }

  it('refuses archives of such trees in every format with 422 and logs a warning naming the project', async () => {
    for (const branch of [...Object.keys(DANGEROUS_NAMES), 'nested', 'corrupt']) {
      for (const format of ['tar.gz', 'zip', 'tar.bz2', 'tar']) {
        logs.length = 0;
        const response = await api(`/archive.${format}?sha=${branch}`).catch((error: unknown) => { throw new Error(`${branch} ${format}: ${String(error)}`); });
        assertRefused(response, `${branch} ${format}`);
        const warning = logs.find((line) => line.operation === 'archive');
        assert.ok(warning, `${branch} ${format}: no warning in ${JSON.stringify(logs)}`);
        assert.equal(warning.projectId, projectId);
        assert.equal(warning.level, 40);
        assert.ok(String(warning.problem).length > 0);
      }
    }
  });

  it('refuses tree listings that hold them, at the top or deeper', async () => {
    for (const branch of Object.keys(DANGEROUS_NAMES)) {
      logs.length = 0;
      assertRefused(await api(`/tree?ref=${branch}`), `${branch} tree`);
      assert.ok(logs.some((line) => line.operation === 'tree' && line.projectId === projectId), branch);
      assertRefused(await api(`/tree?ref=${branch}&recursive=true`), `${branch} recursive tree`);
    }
    assert.equal((await api('/tree?ref=nested')).status, 200);
    assertRefused(await api('/tree?ref=nested&recursive=true'), 'nested recursive tree');
    assertRefused(await api('/tree?ref=nested&path=a'), 'nested tree of a');
    assertRefused(await api('/tree?ref=corrupt&path=broken'), 'corrupt subtree');
    assertRefused(await api('/tree?ref=corrupt&recursive=true'), 'corrupt recursive tree');
  });

  it('refuses diffs and compares that carry them', async () => {
    for (const branch of [...Object.keys(DANGEROUS_NAMES), 'nested', 'corrupt']) {
      logs.length = 0;
      assertRefused(await api(`/commits/${branch}/diff`), `${branch} diff`);
      assert.ok(logs.some((line) => (line.operation === 'diff' || line.operation === 'read') && line.projectId === projectId), `${branch}: ${JSON.stringify(logs)}`);
      assertRefused(await api(`/compare?from=main&to=${branch}`), `${branch} compare`);
    }
  });

  it('refuses files read through such an entry and still serves the clean files beside it', async () => {
    assertRefused(await api(`/files/${encodeURIComponent('.git/config')}?ref=dot-git`), '.git/config');
    assertRefused(await api(`/files/${encodeURIComponent('.GIT/config')}/raw?ref=upper-git`), '.GIT/config raw');
    assertRefused(await api(`/files/${encodeURIComponent('a/.git/config')}/blame?ref=nested`), 'a/.git/config blame');
    for (const branch of [...Object.keys(DANGEROUS_NAMES), 'nested', 'corrupt']) {
      assert.equal((await api(`/files/README.md/raw?ref=${branch}`)).status, 200, branch);
      assert.equal((await api(`/files/README.md/blame?ref=${branch}`)).status, 200, branch);
      assert.equal((await api(`/commits/${branch}?stats=false`)).status, 200, branch);
    }
    // Its stats need a diff of the corrupt tree.
    assertRefused(await api('/commits/corrupt'), 'corrupt commit with stats');
  });

  it('never answers a 5xx on any read of them', async () => {
    const reads = ['/tree', '/tree?recursive=true', '/archive', '/commits', '/contributors', '/files/README.md', '/commits/HEAD/diff'];
    for (const branch of [...Object.keys(DANGEROUS_NAMES), 'nested', 'corrupt']) {
      for (const read of reads) {
        const separator = read.includes('?') ? '&' : '?';
        const response = await api(`${read}${separator}${read.startsWith('/commits/HEAD') ? '' : `ref=${branch}&ref_name=${branch}&sha=${branch}`}`);
        assert.ok(response.status < 500, `${branch} ${read}: ${response.status}`);
      }
    }
  });
});
