/**
 * The webhook delivery thread (started by hook-thread.ts): opens the coordinator's database
 * and repositories again, through the factories the coordinator uses, and runs the
 * deliveries' task worker until told to stop. Its log lines go to the coordinator's logger.
 */
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../shared/logger.ts';
import { createRepositoryManager } from '../storage/git/index.ts';
import { sharedSpawner } from '../storage/git/spawner.ts';
import { openDatabase } from '../storage/sql/database.ts';
import { openDatabaseNotifications } from '../storage/sql/notifications.ts';
import { createSqlStores } from '../storage/sql/stores/index.ts';
import { buildHookSending } from './hook-sending.ts';
import type { FromHookThread, HookThreadSettings, ToHookThread } from './hook-thread.ts';
import { coordinatorSecretBox } from './secret-keys.ts';
import { SettingsService } from './services/instance/settings.ts';
import { ThreadPriority } from '../shared/thread-priority.ts';

if (!parentPort) throw new Error('hook-thread-main runs as a worker thread (hook-thread.ts starts it)');
const port = parentPort;
const settings = workerData as HookThreadSettings;
const post = (message: FromHookThread): void => port.postMessage(message);

const logger = createLogger({ level: settings.logLevel, destination: { write: (line: string) => post({ type: 'log', line }) } }).child({ thread: 'webhook deliveries' });
const { databaseUrl } = settings.storage;
const database = openDatabase(databaseUrl, (error) => logger.warn({ err: error }, 'an idle database connection was lost'));
// On PostgreSQL the settings' changes arrive as for any coordinator; a SQLite file's within a second (SettingsService's age).
const notifications = openDatabaseNotifications(databaseUrl, (error) => logger.warn({ err: error }, 'the database notification connection failed'));
const secrets = await coordinatorSecretBox(settings.storage.secretKeys, settings.dataDir, databaseUrl, logger);
const stores = createSqlStores(database.db, database.writes, secrets);
// The coordinator's repositories directory (startup.ts) and its temporary files' owner: the thread only reads.
const repositories = createRepositoryManager({ ...settings.storage.git, root: path.join(settings.dataDir, 'repositories'), logger, instanceId: settings.instanceId });
const applicationSettings = new SettingsService(stores.settings, { changes: notifications.signal('gantry_settings') });
// Sending is background work: the thread yields its core to the coordinator's requests while it keeps up.
// Before anything starts a process: the git processes of a push's payload inherit the level.
const priority = ThreadPriority.ofCallingThread(logger, () => [sharedSpawner().helperPid].filter((pid) => pid !== undefined));
await priority?.set('background');
const { worker } = buildHookSending(
  { stores, repositories, settings: applicationSettings, externalUrl: settings.externalUrl, logger, owner: settings.instanceId },
  {
    concurrency: settings.concurrency, timeoutMs: settings.timeoutMs, retryBaseMs: settings.retryBaseMs, pollIntervalMs: settings.pollIntervalMs,
    onClaim: (task) => priority?.observeLag(Date.now() - Date.parse(task.run_at)),
  },
);

let closing: Promise<void> | undefined;
const close = async (graceMs: number): Promise<void> => {
  await worker.stop(graceMs);
  await repositories.close();
  await notifications.close();
  await database.close();
  // Nothing is left to keep the thread alive: it ends.
  port.close();
};
port.on('message', (message: ToHookThread) => {
  if (closing) return;
  if (message.type === 'wake') worker.wake();
  else if (message.type === 'start') worker.start();
  else if (message.type === 'stop') void worker.stop(message.graceMs).then(() => post({ type: 'stopped' }));
  else closing = close(message.graceMs).catch((error: unknown) => {
    logger.error({ err: error }, 'the webhook delivery thread did not close cleanly');
    port.close();
  });
});
worker.start();
post({ type: 'ready' });
