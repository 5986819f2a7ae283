import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MergeRequestPermissions } from '../../src/coordinator/services/access/merge-request-permissions.ts';
import { PlanningPermissions } from '../../src/coordinator/services/access/planning-permissions.ts';
import type { IssueObserver, NoteWritten } from '../../src/coordinator/services/planning/issue-observers.ts';
import { IssueViews } from '../../src/coordinator/services/planning/issue-views.ts';
import { VisibleMergeRequests } from '../../src/coordinator/services/planning/merge-requests/visible.ts';
import { Noteables } from '../../src/coordinator/services/planning/noteables.ts';
import { NotesService } from '../../src/coordinator/services/planning/notes.ts';
import { VisibleIssues } from '../../src/coordinator/services/planning/visible-issues.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

/** The notes service announces each note a person writes, after it is stored, to the issue observers (todos hang on it). */
describe('notes announced to issue observers', () => {
  let fx: CiSettingsFixture;
  const written: NoteWritten[] = [];
  /** Whether each announced note could already be read from the store when it was announced. */
  const storedWhenAnnounced: boolean[] = [];

  before(async () => {
    fx = await startCiSettingsFixture();
  });
  after(() => fx.close());

  it('tells every observer of a written note, with its issue, project and author; never of a refused one', async () => {
    const { stores, lookup, permissions } = fx.gantry.coordinator.context;
    const recorder: IssueObserver = {
      noteWritten: async (event) => {
        written.push(event);
        storedWhenAnnounced.push((await stores.notes.findOn('Issue', event.issue.issue.id, event.note.id)) !== undefined);
      },
    };
    const views = new IssueViews({ issues: stores.issues, milestones: stores.milestones, users: stores.users, projects: stores.projects, namespaces: stores.namespaces, notes: stores.notes, awardEmoji: stores.awardEmoji, mergeRequestIssueLinks: stores.mergeRequestIssueLinks });
    const planningPermissions = new PlanningPermissions(permissions);
    const visibleIssues = new VisibleIssues({ lookup, issues: stores.issues, planningPermissions });
    const visibleMergeRequests = new VisibleMergeRequests({ lookup, mergeRequests: stores.mergeRequests, mergeRequestPermissions: new MergeRequestPermissions(permissions) });
    const noteables = new Noteables({ lookup, planningPermissions, visibleIssues, visibleMergeRequests });
    const notes = new NotesService({ notes: stores.notes, users: stores.users, planningPermissions, noteables, views, observers: [{}, recorder], mergeRequestObservers: [] });
    const issue = await fx.gantry.api('POST', `/projects/${fx.project.id}/issues`, { body: { title: 'Observed', labels: 'watched' } });
    const actor = (await stores.users.findByIds([fx.developer.id]))[0]!;
    const view = await notes.create(String(fx.project.id), actor, { type: 'Issue', iid: Number(issue.json.iid) }, { body: 'cc @ci-reporter' });

    assert.equal(written.length, 1);
    const [event] = written;
    assert.deepEqual([event?.note.id, event?.note.body, event?.actor.id, event?.project.id], [view.note.id, 'cc @ci-reporter', fx.developer.id, fx.project.id]);
    assert.deepEqual([event?.issue.issue.iid, event?.issue.labels], [issue.json.iid, ['watched']]);
    assert.deepEqual(storedWhenAnnounced, [true]);

    const stranger = (await stores.users.findByIds([fx.stranger.id]))[0]!;
    await assert.rejects(notes.create(String(fx.project.id), stranger, { type: 'Issue', iid: Number(issue.json.iid) }, { body: 'hi' }));
    assert.equal(written.length, 1);
  });
});
