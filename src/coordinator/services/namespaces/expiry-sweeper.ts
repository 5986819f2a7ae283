import type { Logger } from '../../../shared/logger.ts';
import type { MembersStore } from '../../../storage/types.ts';
import type { GroupGroupLinksStore, ProjectGroupLinksStore } from '../../../storage/types-projects.ts';

const HOUR = 60 * 60 * 1000;

/**
 * Removes memberships and project and group shares past their `expires_at` date, as GitLab's daily
 * workers do: on start, then every hour. Group owners are kept.
 */
export class ExpirySweeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly members: MembersStore,
    private readonly projectShares: ProjectGroupLinksStore,
    private readonly groupShares: GroupGroupLinksStore,
    private readonly logger: Logger,
  ) {}

  async sweep(today = new Date().toISOString().slice(0, 10)): Promise<{ members: number; shares: number }> {
    const members = await this.members.removeExpired(today);
    const shares = (await this.projectShares.removeExpired(today)) + (await this.groupShares.removeExpired(today));
    if (members + shares > 0) this.logger.info({ members, shares }, 'removed expired memberships and shares');
    return { members, shares };
  }

  start(intervalMs = HOUR): void {
    this.timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, 'expiry sweep failed'));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
