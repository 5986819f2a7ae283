import path from 'node:path';
import type { Logger } from '../shared/logger.ts';
import { createRepositoryManager } from '../storage/git/index.ts';
import type { OpenedDatabase } from '../storage/sql/database.ts';
import { migrateToLatest } from '../storage/sql/migrate.ts';
import { acquireStartupLock } from '../storage/sql/process-locks.ts';
import { jobQueueSignal } from '../storage/sql/queue-signal.ts';
import { createSqlStores } from '../storage/sql/stores/index.ts';
import { SqlInstallationStore } from '../storage/sql/stores/instances.ts';
import { checkSecretKey, sealStoredSecrets } from '../storage/sql/secrets-at-rest.ts';
import type { DatabaseNotifications } from '../storage/types-notifications.ts';
import { bootstrapRegistrationToken, bootstrapRoot, claimDataDirectory, describeDatabase } from './bootstrap.ts';
import type { CoordinatorContext } from './context.ts';
import type { CoordinatorOptions } from './options.ts';
import { reconcileAtStart } from './repository-reconciliation.ts';
import { coordinatorSecretBox } from './secret-keys.ts';
import { AccountsService } from './services/accounts/accounts.ts';
import { Lookup } from './services/access/lookup.ts';
import { Permissions } from './services/access/permissions.ts';
import { ReadCache } from './services/access/read-cache.ts';
import { RunningJobTokens } from './services/ci/runners/job-token-verifier.ts';
import { CoordinatorEvents } from './services/events.ts';
import { CoordinatorInstance } from './services/instance/instances.ts';
import { SettingsService } from './services/instance/settings.ts';
import { DefaultBranchOnCreation } from './services/repository/default-branch.ts';
import { ProtectedBranchesService } from './services/repository/protected-branches.ts';
import { ProtectedTagsService } from './services/repository/protected-tags.ts';

/**
 * What one coordinator does at a time (PostgreSQL advisory lock): migrations, the data
 * directory's claim, this process's instance row, start-up repair and the first-start
 * bootstrap. Builds the context on the way.
 */
export async function startUnderLock(
  options: CoordinatorOptions,
  logger: Logger,
  opened: { dataDir: string; databaseUrl: string; database: OpenedDatabase; notifications: DatabaseNotifications },
): Promise<{ context: CoordinatorContext; createdRootToken: string | undefined }> {
  const { dataDir, databaseUrl, database, notifications } = opened;
  const lock = await acquireStartupLock(databaseUrl, () => logger.info('waiting for another coordinator to finish starting (migrations, start-up repair)'));
  try {
    await migrateToLatest(database.db, database.dialect);
    if (databaseUrl !== ':memory:') await claimDataDirectory(new SqlInstallationStore(database.db), dataDir, describeDatabase(databaseUrl));
    const secrets = await coordinatorSecretBox(options.secretKeys, dataDir, databaseUrl, logger);
    await checkSecretKey(database.db, secrets, new Date().toISOString());
    const sealed = await sealStoredSecrets(database.db, secrets);
    if (sealed > 0) logger.info({ sealed }, 'sealed the secrets stored in clear or with an older secret key');
    const stores = createSqlStores(database.db, database.writes, secrets);
    const instance = new CoordinatorInstance({ store: stores.instances, logger, singleProcess: database.dialect !== 'postgres' }, options.instances);
    const permissions = new Permissions(stores.accessFacts, stores.namespaces, stores.groupGroupLinks);
    const settings = new SettingsService(stores.settings, { maxAgeMs: options.settingsMaxAgeMs, changes: notifications.signal('gantry_settings') });
    const context: CoordinatorContext = {
      config: { externalUrl: (options.externalUrl ?? 'http://localhost:8080').replace(/\/+$/, ''), dataDir },
      logger,
      db: database.db,
      dialect: database.dialect,
      stores,
      permissions,
      settings,
      accounts: new AccountsService(stores.users, stores.namespaces, stores.tokens),
      lookup: new Lookup(stores.projects, stores.namespaces, stores.users, permissions),
      repositories: createRepositoryManager({ ...options.git, root: path.join(dataDir, 'repositories'), logger, instanceId: instance.id }),
      events: new CoordinatorEvents((error) => logger.error({ err: error }, 'event listener failed')),
      jobTokens: options.jobTokenVerifier ?? new RunningJobTokens(stores.jobs),
      readCache: options.cacheReads === false ? new ReadCache(() => null) : new ReadCache(database.externalStamp, database.writes),
      protectedBranches: new ProtectedBranchesService({ store: stores.protectedBranches, settings, permissions }),
      protectedTags: new ProtectedTagsService({ store: stores.protectedTags, permissions }),
      jobQueueSignal: jobQueueSignal(notifications),
      instance,
    };
    // First: the later recorders (push pipelines, hooks) see the default branch a first push makes.
    const defaultBranch = new DefaultBranchOnCreation({ projects: stores.projects, repositories: context.repositories, protectedBranches: context.protectedBranches });
    context.events.onPushRecorded((push) => defaultBranch.recordPush(push));
    try {
      await instance.register();
      await reconcileAtStart(context);
      const createdRootToken = await bootstrapRoot(context, options.rootToken);
      await bootstrapRegistrationToken(context);
      return { context, createdRootToken };
    } catch (error) {
      await instance.stop().catch(() => {});
      await context.repositories.close();
      throw error;
    }
  } finally {
    await lock.release();
  }
}
