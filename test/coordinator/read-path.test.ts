import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TableChange } from '../../src/storage/types-changes.ts';
import { ReadCache } from '../../src/coordinator/services/access/read-cache.ts';
import { projectViewDependencies } from '../../src/coordinator/services/namespaces/project-views.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

const onPostgres = Boolean(process.env.GANTRY_TEST_DATABASE_URL);

/** The tables a statement reads or writes. */
function tablesOf(sql: string): string[] {
  return [...sql.matchAll(/\b(?:from|join|into|update)\s+"?(\w+)"?/gi)].map((match) => match[1]!).filter((table) => table !== 'chain');
}

describe('one read request resolves its project, namespaces and access once', () => {
  let gantry: TestCoordinator;
  let dev: TestUser;
  let projectId: number;
  let statements: string[] | undefined;

  before(async () => {
    // Settings kept for the whole test: a copy ageing out mid-request (1 s by default) adds a read on a slow machine.
    gantry = await startTestCoordinator({ extra: { cacheReads: false, settingsMaxAgeMs: 3_600_000, onStatement: (sql, parameters) => statements?.push(`${sql} ${JSON.stringify(parameters)}`) } });
    dev = await makeUser(gantry, 'dev');
    const group = await makeGroup(gantry, 'acme');
    const subgroup = await makeGroup(gantry, 'tools', { parentId: group.id });
    await addMember(gantry, { type: 'namespace', id: group.id }, dev.id, 30);
    const created = await gantry.api('POST', '/projects', { body: { name: 'hammer', namespace_id: subgroup.id } });
    assert.equal(created.status, 201);
    projectId = created.json.id as number;
    const partners = await makeGroup(gantry, 'partners');
    assert.equal((await gantry.api('POST', `/projects/${projectId}/share`, { body: { group_id: partners.id, group_access: 20 } })).status, 201);
  });
  after(() => gantry.close());

  const statementsOf = async (url: string, token: string) => {
    statements = [];
    const response = await gantry.api('GET', url, { token });
    // The task worker polls on its own schedule, whatever request is in flight; a caller's activity
    // day is written in the background after the answer (once a day), never on the read path.
    const seen = statements.filter((sql) => !tablesOf(sql).includes('tasks') && !tablesOf(sql).includes('user_activity_days'));
    statements = undefined;
    assert.equal(response.status, 200, response.text);
    return { response, seen };
  };

  it('runs no statement twice (same SQL, same parameters), and few in all', async () => {
    const { response, seen } = await statementsOf(`/projects/${projectId}`, dev.token);
    assert.equal((response.json.permissions as { group_access: { access_level: number } }).group_access.access_level, 30);
    const repeated = seen.filter((sql, index) => seen.indexOf(sql) !== index);
    assert.deepEqual(repeated, [], `statements repeated within one request:\n${repeated.join('\n')}`);
    // Sign-in (token and owner joined) 1, the project 1, the caller's memberships 1, the project's namespace chain 1 and the
    // groups shared with it 1, the project's shares 1 (read once for the read rule and the answer), the share group's chain 1,
    // the groups shared with that 1 and its subgroups 1, stars and forks together 1. The answer's namespaces come from the
    // chains already read. Exactly: a statement creeping back fails here.
    assert.equal(seen.length, 10, `${seen.length} statements:\n${seen.join('\n')}`);
  });

  it('declares as dependencies every table a project view reads', async () => {
    const project = (await gantry.coordinator.context.stores.projects.findById(projectId))!;
    const declared = projectViewDependencies(project);
    const covered = new Set([...(declared.tables ?? []), ...Object.keys(declared.rows ?? {})]);
    for (const [url, token] of [
      [`/projects/${projectId}`, dev.token],
      [`/projects/${projectId}?with_custom_attributes=true`, gantry.rootToken],
      [`/projects/${encodeURIComponent('acme/tools/hammer')}`, dev.token],
    ] as const) {
      const { seen } = await statementsOf(url, token);
      // The token's own cache entry covers how the caller signed in.
      const read = new Set(seen.filter((sql) => !/"personal_tokens"/.test(sql)).flatMap(tablesOf));
      assert.ok(read.size >= 5, `too few tables seen: ${[...read].join(', ')}`);
      for (const table of read) assert.ok(covered.has(table), `${url} reads ${table}, which projectViewDependencies does not name`);
    }
  });
});

describe('cached reads are dropped by what changed, and only by that', () => {
  let gantry: TestCoordinator;
  let dev: TestUser;
  let groupId: number;
  let projectId: number;
  let otherProjectId: number;
  let statements = 0;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { onStatement: () => (statements += 1) } });
    dev = await makeUser(gantry, 'dev');
    groupId = (await makeGroup(gantry, 'acme')).id;
    await addMember(gantry, { type: 'namespace', id: groupId }, dev.id, 30);
    projectId = (await gantry.api('POST', '/projects', { body: { name: 'hammer', namespace_id: groupId, description: 'first' } })).json.id as number;
    otherProjectId = (await gantry.api('POST', '/projects', { body: { name: 'elsewhere' } })).json.id as number;
  });
  after(() => gantry.close());

  const read = async () => {
    const response = await gantry.api('GET', `/projects/${projectId}`, { token: dev.token });
    return response.status === 200 ? response.json : response.status;
  };
  const statementsOfRead = async () => {
    const before = statements;
    await read();
    return statements - before;
  };

  it('keeps an answer through writes to other projects (on PostgreSQL, where other coordinators write, every read asks the database)', async () => {
    await read();
    if (onPostgres) {
      assert.ok((await statementsOfRead()) > 0, 'PostgreSQL keeps no read cache');
      return;
    }
    assert.equal(await statementsOfRead(), 0, 'a second read is served from the cache');
    for (let index = 0; index < 3; index += 1) {
      assert.equal((await gantry.api('PUT', `/projects/${otherProjectId}`, { body: { description: `write ${index}` } })).status, 200);
    }
    assert.equal(await statementsOfRead(), 0, 'edits of another project leave the answer cached');
  });

  it('keeps an answer through a task claim (a write to a table no cached answer reads)', async () => {
    if (onPostgres) return;
    const { tasks } = gantry.coordinator.context.stores;
    const now = new Date().toISOString();
    await read();
    assert.equal(await statementsOfRead(), 0, 'a second read is served from the cache');
    await tasks.enqueue({ kind: 'read-path-test', runAt: now }, now);
    const claimed = await tasks.claim({ owner: 'read-path-test', now, lockedUntil: new Date(Date.now() + 60_000).toISOString(), kinds: ['read-path-test'] });
    assert.equal(claimed?.kind, 'read-path-test');
    assert.equal(await statementsOfRead(), 0, 'the claim left the answer cached');
  });

  it('refreshes an answer when its project changes', async () => {
    assert.equal(((await read()) as Record<string, unknown>).description, 'first');
    assert.equal((await gantry.api('PUT', `/projects/${projectId}`, { body: { description: 'second' } })).status, 200);
    assert.equal(((await read()) as Record<string, unknown>).description, 'second');
  });

  it('refreshes an answer when its namespace changes', async () => {
    assert.equal((((await read()) as Record<string, unknown>).namespace as { name: string }).name, 'acme');
    assert.equal((await gantry.api('PUT', `/groups/${groupId}`, { body: { name: 'Acme Tools' } })).status, 200);
    assert.equal((((await read()) as Record<string, unknown>).namespace as { name: string }).name, 'Acme Tools');
  });

  it('refreshes an answer when a membership changes', async () => {
    const before = (await read()) as Record<string, unknown>;
    assert.equal((before.permissions as { project_access: unknown }).project_access, null);
    assert.equal('runners_token' in before, false);
    assert.equal((await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: dev.id, access_level: 40 } })).status, 201);
    const promoted = (await read()) as Record<string, unknown>;
    assert.equal((promoted.permissions as { project_access: { access_level: number } }).project_access.access_level, 40);
    assert.equal(typeof promoted.runners_token, 'string');
    assert.equal((await gantry.api('DELETE', `/projects/${projectId}/members/${dev.id}`)).status, 204);
    assert.equal((await gantry.api('DELETE', `/groups/${groupId}/members/${dev.id}`)).status, 204);
    assert.equal(await read(), 404);
  });
});

describe('ReadCache with declared dependencies', () => {
  const feed = () => {
    let listener: (change: TableChange) => void = () => {};
    return { onChange: (next: (change: TableChange) => void) => (listener = next), emit: (change: TableChange) => listener(change) };
  };
  const make = () => {
    const changes = feed();
    let computed = 0;
    const cache = new ReadCache(() => 'external', changes, 100);
    const read = () =>
      cache.get('project 1', async (depend) => {
        depend({ rows: { projects: [1] }, tables: ['members'] });
        return ++computed;
      });
    return { changes, read };
  };

  it('drops an answer when one of its rows changes, not when another row does', async () => {
    const { changes, read } = make();
    assert.equal(await read(), 1);
    changes.emit({ table: 'projects', rowId: 2 });
    changes.emit({ table: 'stars' });
    assert.equal(await read(), 1);
    changes.emit({ table: 'projects', rowId: 1 });
    assert.equal(await read(), 2);
  });

  it('drops an answer when a table it read changes as a whole, or anything might have', async () => {
    const { changes, read } = make();
    assert.equal(await read(), 1);
    changes.emit({ table: 'members', rowId: 9 });
    assert.equal(await read(), 2);
    changes.emit({ table: 'projects' });
    assert.equal(await read(), 3);
    changes.emit({ table: '*' });
    assert.equal(await read(), 4);
  });

  it('keeps no answer whose rows changed while it was computed', async () => {
    const changes = feed();
    let computed = 0;
    const cache = new ReadCache(() => 'external', changes, 100);
    const read = () =>
      cache.get('key', async (depend) => {
        depend({ rows: { projects: [1] } });
        computed += 1;
        if (computed === 1) changes.emit({ table: 'projects', rowId: 1 });
        return computed;
      });
    assert.equal(await read(), 1);
    assert.equal(await read(), 2);
    assert.equal(await read(), 2);
  });
});
