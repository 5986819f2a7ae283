import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_SEARCH_TERMS, searchTerms } from '../../../src/storage/sql/stores/like.ts';
import type { IssueListFilter, NewIssue } from '../../../src/storage/types-planning.ts';
import type { ProjectRecord, UserRecord } from '../../../src/storage/types.ts';
import { createGroup, createProject, createUser, NOW, openCiTestDatabase, type CiTestDatabase } from './ci-fixtures.ts';

describe('issue and merge request search (Gitlab::SQL::Pattern)', () => {
  let database: CiTestDatabase & { url: string };
  let project: ProjectRecord;
  let alice: UserRecord;

  before(async () => {
    database = await openCiTestDatabase();
    alice = await createUser(database.stores, 'alice');
    project = await createProject(database.stores, await createGroup(database.stores, 'find'), 'app');
    const issue = (title: string, description: string | null): NewIssue => ({
      project_id: project.id, author_id: alice.id, title, description, state: 'opened', confidential: false, discussion_locked: null, milestone_id: null,
      due_date: null, time_estimate: 0, total_time_spent: 0, closed_at: null, closed_by_id: null, created_at: NOW, updated_at: NOW,
    });
    for (const [title, description] of [
      ['alpha bug!', null], ['Beta', 'the alpha release'], ['ab', 'a bug in 100%_done'], ['Gamma bug', 'alpha'], ['x', 'AB'],
    ] as const) await database.stores.issues.create(issue(title, description), {});
    for (const [branch, title, description] of [['a', 'alpha bug!', null], ['b', 'Bug', 'only alpha here'], ['c', 'ab', null]] as const) {
      await database.stores.mergeRequests.create(
        { project_id: project.id, source_project_id: project.id, source_branch: branch, target_branch: 'main', author_id: alice.id, title, description, state: 'opened', created_at: NOW },
        {},
      );
    }
  });
  after(() => database.close());

  const issues = async (search: string, searchIn?: IssueListFilter['searchIn']) => {
    const filter: IssueListFilter = { projects: { projectIds: [project.id], visibleScope: null }, confidentialAccess: null, search, searchIn, orderBy: 'created_at', sort: 'asc' };
    return (await database.stores.issues.list(filter, { offset: 0, limit: 20 })).items.map((issue) => issue.iid);
  };

  it('splits a query into words, keeps a quoted phrase whole and drops words under three characters', () => {
    assert.deepEqual(searchTerms('  bug \t alpha  '), { squished: 'bug alpha', terms: ['bug', 'alpha'] });
    assert.deepEqual(searchTerms('"alpha bug" of it')?.terms, ['alpha bug'], 'the phrase comes last; "of" and "it" are too short');
    assert.deepEqual(searchTerms('a "b" c')?.terms, []);
    assert.equal(searchTerms('   '), undefined);
    assert.equal(searchTerms(Array.from({ length: 100 }, (_, n) => `word${n}`).join(' '))?.terms.length, MAX_SEARCH_TERMS);
  });

  it('finds issues with every word in one column, in any order and case', async () => {
    assert.deepEqual(await issues('bug alpha'), [1]);
    assert.deepEqual(await issues('ALPHA'), [1, 2, 4]);
    assert.deepEqual(await issues('alpha bug', ['description']), []);
    assert.deepEqual(await issues('alpha', ['description']), [2, 4]);
    assert.deepEqual(await issues('"alpha release"'), [2]);
    assert.deepEqual(await issues('"release alpha"'), []);
    assert.deepEqual(await issues('gamma alpha'), [], 'the words must meet in one column');
  });

  it('matches a query of short words only as a whole value, case-insensitively, with no wildcards', async () => {
    assert.deepEqual(await issues('ab'), [3, 5]);
    assert.deepEqual(await issues('a'), []);
    assert.deepEqual(await issues('%'), []);
    assert.deepEqual(await issues('0%_'), [3], 'LIKE wildcards are plain characters');
    assert.deepEqual(await issues('100_done'), []);
  });

  it('searches merge requests the same way', async () => {
    const requests = async (search: string) =>
      (await database.stores.mergeRequests.list({ projects: { projectIds: [project.id], visibleScope: null }, search, orderBy: 'created_at', sort: 'asc' }, { offset: 0, limit: 20 })).items.map((request) => request.iid);
    assert.deepEqual(await requests('bug alpha'), [1]);
    assert.deepEqual(await requests('AB'), [3]);
    assert.deepEqual(await requests('alpha'), [1, 2]);
  });
});
