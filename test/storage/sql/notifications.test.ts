import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { NOTIFICATIONS_APPLICATION_NAME, openDatabaseNotifications } from '../../../src/storage/sql/notifications.ts';
import { jobQueueSignal } from '../../../src/storage/sql/queue-signal.ts';
import type { DatabaseNotifications } from '../../../src/storage/types-notifications.ts';
import type { JobQueueSignal } from '../../../src/storage/types-queue-signal.ts';
import { testDatabase } from '../../helpers/database.ts';
import { waitUntil } from '../../helpers/bounded.ts';

const onPostgres = Boolean(process.env.GANTRY_TEST_DATABASE_URL);

/** What one coordinator hears on the two channels it uses. */
class Ears {
  readonly settings: string[] = [];
  readonly queue: Array<{ tick: number } | { reconnected: true }> = [];
  readonly queueSignal: JobQueueSignal;

  constructor(readonly notifications: DatabaseNotifications) {
    notifications.signal('gantry_settings').subscribe((event) => this.settings.push(event));
    this.queueSignal = jobQueueSignal(notifications);
    this.queueSignal.subscribe((event) => this.queue.push(event));
  }

  heardTick(tick: number): boolean {
    return this.queue.some((event) => 'tick' in event && event.tick === tick);
  }
}

describe('database notifications on PostgreSQL: the settings and the job queue over one connection', { skip: !onPostgres && 'needs PostgreSQL: bash scripts/with-postgres.sh' }, () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let admin: pg.Client;
  let here: Ears;
  let there: Ears;
  const errors: Error[] = [];

  /** The listening connections of this test's database, by backend pid. */
  const listeningConnections = async (): Promise<number[]> => {
    const result = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and application_name = $1', [NOTIFICATIONS_APPLICATION_NAME]);
    return result.rows.map((row) => row.pid);
  };

  /** Announces from `there` until `here` hears it: a LISTEN sent while connecting may land after the first NOTIFY. */
  const reaches = async (what: string) => {
    const settingsBefore = here.settings.length;
    const tick = Date.now() + Math.floor(Math.random() * 1000);
    await waitUntil(
      () => {
        there.notifications.signal('gantry_settings').announce();
        there.queueSignal.publish(tick);
        return here.settings.length > settingsBefore && here.heardTick(tick);
      },
      what,
      { intervalMs: 100, explain: () => `settings heard ${here.settings.length - settingsBefore}, queue heard ${JSON.stringify(here.queue.slice(-3))}` },
    );
  };

  before(async () => {
    database = await testDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    here = new Ears(openDatabaseNotifications(database.url, (error) => errors.push(error)));
    there = new Ears(openDatabaseNotifications(database.url, (error) => errors.push(error)));
    await waitUntil(() => here.notifications.listening() && there.notifications.listening(), 'both coordinators listening');
  });
  after(async () => {
    await here?.notifications.close();
    await there?.notifications.close();
    await admin?.end();
    await database?.drop();
  });

  it('carries another coordinator’s announcements on both channels, the tick as the payload', async () => {
    await reaches('settings and a tick from the other coordinator');
    assert.deepEqual(new Set(here.settings), new Set(['changed']));
  });

  it('holds one listening connection per coordinator, however many channels it listens on', async () => {
    assert.equal((await listeningConnections()).length, 2);
  });

  it('after its connection is killed, reconnects, tells both channels about the gap and hears again', async () => {
    const settingsBefore = here.settings.length;
    const queueBefore = here.queue.length;
    const killed = await listeningConnections();
    await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [killed]);
    await waitUntil(
      () => here.settings.slice(settingsBefore).includes('gap') && here.queue.slice(queueBefore).some((event) => 'reconnected' in event),
      'a gap on both channels',
      { explain: () => `settings ${JSON.stringify(here.settings.slice(settingsBefore))}, queue ${JSON.stringify(here.queue.slice(queueBefore))}` },
    );
    await reaches('announcements over the reopened connections');
    const now = await listeningConnections();
    assert.equal(now.length, 2, 'one connection each again, none leaked');
    assert.ok(now.every((pid) => !killed.includes(pid)), 'new backends');
    assert.ok(errors.length > 0, 'the lost connection was reported');
  });

  it('ignores a payload on the queue channel that is not a tick', async () => {
    const queueBefore = here.queue.length;
    await admin.query(`select pg_notify('gantry_job_queue', 'not a tick')`);
    await reaches('a tick after the foreign payload');
    assert.ok(here.queue.slice(queueBefore).every((event) => 'reconnected' in event || Number.isSafeInteger(event.tick)));
  });
  it('refuses a channel name that is not a plain identifier', () => {
    assert.throws(() => here.notifications.signal('bad; drop table x'), /invalid notification channel/);
  });
});

describe('database notifications on SQLite: nothing leaves the process', () => {
  it('listens always, and announcements on either channel reach no one', async () => {
    const ears = new Ears(openDatabaseNotifications(':memory:'));
    try {
      assert.equal(ears.notifications.listening(), true);
      ears.notifications.signal('gantry_settings').announce();
      ears.queueSignal.publish(42);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(ears.settings, []);
      assert.deepEqual(ears.queue, []);
    } finally {
      await ears.notifications.close();
    }
  });

});
