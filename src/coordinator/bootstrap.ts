import type { CoordinatorContext } from './context.ts';
import { InstanceRegistrationToken } from './services/ci/runners/tokens.ts';

/**
 * On first start (no users yet) creates the administrator `root` (id 1) with a personal token.
 * Returns the token only when it was created now.
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
