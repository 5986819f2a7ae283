import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { enc, startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

/**
 * Revisions a client may send that are no branch, tag or SHA. Several of them make
 * `git cat-file --batch-command` die ("relative path syntax can't be used outside working
 * tree", "log for 'main' only has 1 entries", "no upstream configured").
 */
const BAD_REFS = [
  'main:./README.md',
  'main:README.md',
  'main:../x',
  'main^{tree}',
  'main^{/Initial}',
  ':/Initial',
  'main@{1000}',
  'main@{0}',
  '@{u}',
  'HEAD@{-1}',
  'main..main',
  'main...main',
  '-main',
  '--all',
  'main\nHEAD',
  'main\u0000',
  'ma in',
  'main*',
  'refs/heads/.hidden',
  'main.lock',
];

/** Each read with a bad ref, and the statuses that request may answer (what an unknown ref gets). */
function badReads(projectId: number, ref: string): Array<{ url: string; allowed: number[] }> {
  const base = `/projects/${projectId}/repository`;
  const r = enc(ref);
  return [
    { url: `${base}/files/README.md?ref=${r}`, allowed: [400, 404] },
    { url: `${base}/files/README.md/raw?ref=${r}`, allowed: [400, 404] },
    { url: `${base}/files/README.md/blame?ref=${r}`, allowed: [400, 404] },
    { url: `${base}/tree?ref=${r}`, allowed: [400, 404] },
    { url: `${base}/commits?ref_name=${r}`, allowed: [200, 400, 404] },
    { url: `${base}/commits/${r}`, allowed: [400, 404] },
    { url: `${base}/commits/${r}/diff`, allowed: [400, 404] },
    { url: `${base}/commits/${r}/refs`, allowed: [400, 404] },
    { url: `${base}/compare?from=${r}&to=main`, allowed: [400, 404] },
    { url: `${base}/compare?from=main&to=${r}`, allowed: [400, 404] },
    { url: `${base}/archive?sha=${r}`, allowed: [400, 404] },
    { url: `${base}/archive.zip?sha=${r}`, allowed: [400, 404] },
    { url: `${base}/merge_base?refs[]=${r}&refs[]=main`, allowed: [400, 404] },
    { url: `${base}/blobs/${r}`, allowed: [400, 404] },
    { url: `${base}/blobs/${r}/raw`, allowed: [400, 404] },
    { url: `${base}/branches/${r}`, allowed: [400, 404] },
    { url: `${base}/tags/${r}`, allowed: [400, 404] },
  ];
}

describe('bad refs from one client do not break reads for the others', () => {
  let fx: RepositoryFixture;
  let project: ProjectRecord;
  let head: string;

  before(async () => {
    fx = await startRepositoryFixture();
    project = await fx.project('open', { visibility: 'public', withReadme: true });
    const commit = await fx.commit(project, {
      branch: 'main',
      commit_message: 'More files',
      actions: [
        { action: 'create', file_path: 'src/app.ts', content: 'export const app = 1;\n' },
        { action: 'create', file_path: 'docs/guide.md', content: '# Guide\n' },
      ],
    });
    head = String(commit.id);
  });

  after(async () => {
    await fx?.close();
  });

  it('answers every bad ref on every read route with a 4xx, anonymously', async () => {
    const failures: string[] = [];
    for (const ref of BAD_REFS) {
      for (const { url, allowed } of badReads(project.id, ref)) {
        const response = await fx.gantry.api('GET', url, { token: null });
        if (!allowed.includes(response.status)) failures.push(`${response.status} ${url} ${response.text.slice(0, 80)}`);
        if (response.status >= 400) assert.doesNotThrow(() => JSON.parse(response.text), `${url}: ${response.text}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  it('answers the 404 an unknown ref gets, with the same text', async () => {
    const base = `/projects/${project.id}/repository`;
    for (const ref of ['main:./README.md', 'main@{1000}', 'no-such-branch']) {
      const file = await fx.gantry.api('GET', `${base}/files/README.md/raw?ref=${enc(ref)}`, { token: null });
      assert.deepEqual([file.status, file.json], [404, { message: '404 Commit Not Found' }], ref);
      const tree = await fx.gantry.api('GET', `${base}/tree?ref=${enc(ref)}`, { token: null });
      assert.deepEqual([tree.status, tree.json], [404, { message: '404 Tree Not Found' }], ref);
      const compare = await fx.gantry.api('GET', `${base}/compare?from=${enc(ref)}&to=main`, { token: null });
      assert.deepEqual([compare.status, compare.json], [404, { message: '404 Ref Not Found' }], ref);
      const archive = await fx.gantry.api('GET', `${base}/archive?sha=${enc(ref)}`, { token: null });
      assert.deepEqual([archive.status, archive.json], [404, { message: '404 File Not Found' }], ref);
    }
  });

  it('keeps ancestry suffixes working', async () => {
    const base = `/projects/${project.id}/repository`;
    const parent = await fx.gantry.api('GET', `${base}/commits/${enc('main~1')}`, { token: null });
    assert.equal(parent.status, 200);
    const caret = await fx.gantry.api('GET', `${base}/commits/${enc(`${head}^`)}`, { token: null });
    assert.equal(caret.json.id, parent.json.id);
    const abbreviated = await fx.gantry.api('GET', `${base}/files/README.md/raw?ref=${head.slice(0, 8)}`, { token: null });
    assert.equal(abbreviated.status, 200);
    const fullRef = await fx.gantry.api('GET', `${base}/files/README.md/raw?ref=${enc('refs/heads/main')}`, { token: null });
    assert.equal(fullRef.status, 200);
  });

  it('serves every concurrent normal read while another client repeats bad refs', async () => {
    const base = `/projects/${project.id}/repository`;
    const normal = [
      `${base}/files/README.md/raw?ref=main`,
      `${base}/files/${enc('src/app.ts')}?ref=main`,
      `${base}/files/README.md/blame?ref=main`,
      `${base}/tree?ref=main&recursive=true`,
      `${base}/commits/main`,
      `${base}/commits?ref_name=main`,
      `${base}/compare?from=main~1&to=main`,
      `${base}/branches/main`,
    ];
    const statuses = { normal: new Map<number, number>(), bad: new Map<number, number>() };
    const count = (map: Map<number, number>, status: number) => map.set(status, (map.get(status) ?? 0) + 1);
    const ROUNDS = 10;
    const PER_ROUND = 32;
    const killers = ['main:./README.md', 'main@{1000}', '@{u}', 'main:../x'];
    for (let round = 0; round < ROUNDS; round += 1) {
      const requests: Array<Promise<void>> = [];
      for (let index = 0; index < PER_ROUND; index += 1) {
        const url = normal[index % normal.length]!;
        requests.push(fx.gantry.api('GET', url, { token: null }).then((response) => void count(statuses.normal, response.status)));
        if (index % 4 === 0) {
          const ref = enc(killers[(round + index) % killers.length]!);
          const bad = [`${base}/files/README.md/raw?ref=${ref}`, `${base}/commits/${ref}`, `${base}/tree?ref=${ref}`][index % 3]!;
          requests.push(fx.gantry.api('GET', bad, { token: null }).then((response) => void count(statuses.bad, response.status)));
        }
      }
      await Promise.all(requests);
    }
    assert.deepEqual([...statuses.normal], [[200, ROUNDS * PER_ROUND]], `normal reads: ${JSON.stringify([...statuses.normal])}`);
    assert.ok([...statuses.bad.keys()].every((status) => status === 400 || status === 404), `bad reads: ${JSON.stringify([...statuses.bad])}`);
  });
});
