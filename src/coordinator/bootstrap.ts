import { randomUUID } from 'node:crypto';
import { GantryError } from '../shared/errors.ts';
import { dataDirMarkerPath, readDataDirMarker, writeDataDirMarker } from '../storage/fs/data-dir-marker.ts';
import type { InstallationStore } from '../storage/types-instances.ts';
import type { CoordinatorContext } from './context.ts';
import { InstanceRegistrationToken } from './services/ci/runners/tokens.ts';

/**
 * On first start (no users yet) creates the administrator `root` (id 1) with a personal token.
 * Returns the token only when it was created now. Runs under the start-up lock, so two
 * coordinators starting at once on a fresh database create root once.
 */
export async function bootstrapRoot(context: CoordinatorContext, rootToken: string | undefined): Promise<string | undefined> {
  if ((await context.stores.users.count()) > 0) return undefined;
  const settings = await context.settings.values();
  const root = await context.accounts.createUser({
    username: 'root',
    name: 'Administrator',
    email: 'admin@example.com',
    is_admin: true,
    projects_limit: settings.default_projects_limit,
    can_create_group: true,
  });
  return context.accounts.issueToken(root.id, 'root bootstrap token', rootToken);
}

/** Generates the instance's runner registration token on first start; later starts keep it. */
export async function bootstrapRegistrationToken(context: CoordinatorContext): Promise<void> {
  await new InstanceRegistrationToken({ store: context.stores.settings, settings: context.settings }).current();
}

/**
 * Makes sure the data directory belongs to the database: the first start records an
 * installation id in both (the `gantry_installation` row and the directory's marker file);
 * every later start finds the same id in both, or refuses to start with one line saying why.
 * A coordinator given a data directory of its own beside others on one database would serve
 * repositories and artifacts nobody else sees. Runs under the start-up lock.
 */
export async function claimDataDirectory(installation: InstallationStore, dataDir: string, database: string): Promise<string> {
  const recorded = await installation.find();
  const marker = await readDataDirMarker(dataDir);
  if (recorded !== undefined && marker === recorded) return recorded;
  const markerPath = dataDirMarkerPath(dataDir);
  if (recorded === undefined && marker === undefined) {
    const created = await installation.create(randomUUID(), new Date().toISOString());
    await writeDataDirMarker(dataDir, created);
    return created;
  }
  let problem: string;
  if (recorded === undefined) {
    problem = `the data directory ${dataDir} belongs to another database: its marker ${markerPath} names installation ${marker}, and ${database} is a new one. Start with the database it belongs to, or give this database an empty data directory`;
  } else if (marker === undefined) {
    problem = `the data directory ${dataDir} is not the one of ${database} (installation ${recorded}): it has no marker ${markerPath}. Every coordinator of a database needs the same shared data directory; if this is it (restored without its marker), write ${recorded} into ${markerPath}`;
  } else {
    problem = `the data directory ${dataDir} belongs to another database: its marker ${markerPath} names installation ${marker}, but ${database} is installation ${recorded}. Every coordinator of a database needs the same shared data directory`;
  }
  throw new GantryError('GANTRY_E_DATA_DIR_FOREIGN', problem);
}

/** A database URL fit for a log line: no user or password. */
export function describeDatabase(databaseUrl: string): string {
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) return `the SQLite database ${databaseUrl}`;
  const url = new URL(databaseUrl);
  return `the database ${url.protocol}//${url.host}${url.pathname}`;
}
