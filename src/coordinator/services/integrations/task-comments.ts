import type { Logger } from '../../../shared/logger.ts';
import type { IntegrationsStore } from '../../../storage/types-integrations.ts';
import type { TokensStore } from '../../../storage/types-tokens.ts';
import type { UserRecord } from '../../../storage/types.ts';
import { tokenProblem } from '../accounts/token-validity.ts';

export const TASK_COMMENTS_SLUG = 'task-comments';

/**
 * Whether `branch` is one the integration inspects: `restrict_to_branch` is a comma-separated
 * list of branch names (spaces ignored, as GitLab strips them); blank means every branch.
 */
export function branchAllowed(restrictToBranch: unknown, branch: string): boolean {
  const list = typeof restrictToBranch === 'string' ? restrictToBranch.replace(/\s+/g, '') : '';
  if (list === '') return true;
  return list.split(',').includes(branch);
}

/**
 * The task-comments integration's side of a push: when it is active for the project, subscribed
 * to pushes and the branch passes `restrict_to_branch`, the user whose personal access token
 * is the integration's `api_key` (active, token usable, `api` scope), who comments on the
 * referenced issues and closes the fixed ones. Null otherwise: the push then gets the
 * always-on commit-reference notes only.
 */
export class TaskCommentsSettings {
  constructor(
    private readonly deps: {
      integrations: Pick<IntegrationsStore, 'find'>;
      tokens: Pick<TokensStore, 'findWithOwner'>;
      logger: Logger;
    },
  ) {}

  async commenterFor(projectId: number, branch: string): Promise<UserRecord | null> {
    const integration = await this.deps.integrations.find(projectId, TASK_COMMENTS_SLUG);
    if (!integration?.active || !integration.events.push_events) return null;
    if (!branchAllowed(integration.properties.restrict_to_branch, branch)) return null;
    const apiKey = integration.properties.api_key;
    const found = typeof apiKey === 'string' && apiKey !== '' ? await this.deps.tokens.findWithOwner(apiKey) : undefined;
    if (!found || found.owner.state !== 'active' || tokenProblem(found.token) !== undefined || !found.token.scopes.includes('api')) {
      // The key itself is never logged.
      this.deps.logger.warn({ project: projectId }, 'task-comments: the api_key is not a usable personal access token with the api scope; commenting skipped');
      return null;
    }
    return found.owner;
  }
}
