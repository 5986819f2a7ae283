import { validationFailed } from '../../../shared/errors.ts';
import type { NamespacesStore, ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { LabelsStore, MilestonesStore } from '../../../storage/types-planning.ts';
import type { Permissions } from '../access/permissions.ts';
import { DEFAULT_LABEL_COLOR } from './label-colors.ts';

const MAX_LABEL_TITLE = 255;

export interface IssueFieldsDeps {
  labels: Pick<LabelsStore, 'findByTitles' | 'findOrCreateInProject'>;
  milestones: Pick<MilestonesStore, 'findById'>;
  users: Pick<UsersStore, 'findByIds'>;
  namespaces: Pick<NamespacesStore, 'findById' | 'ancestors'>;
  permissions: Pick<Permissions, 'canReadProject'>;
}

/** What an issue's labels, milestone and assignees name, checked against its project as GitLab does. */
export class IssueFields {
  constructor(private readonly deps: IssueFieldsDeps) {}

  /** The groups above the project (their labels and milestones serve its issues). */
  async ancestorGroupIds(project: ProjectRecord): Promise<number[]> {
    const namespace = await this.deps.namespaces.findById(project.namespace_id);
    if (namespace?.kind !== 'group') return [];
    return [namespace.id, ...(await this.deps.namespaces.ancestors(namespace.id)).map((group) => group.id)];
  }

  /**
   * The ids of the labels named: the project's or its groups' of that title, else a new
   * project label in GitLab's default colour. A name with nothing but spaces is skipped.
   */
  async labelIds(project: ProjectRecord, titles: readonly string[]): Promise<number[]> {
    const wanted = [...new Set(titles.map((title) => title.trim()).filter((title) => title !== ''))];
    if (wanted.length === 0) return [];
    if (wanted.some((title) => [...title].length > MAX_LABEL_TITLE)) throw validationFailed({ labels: [`is too long (maximum is ${MAX_LABEL_TITLE} characters)`] });
    const groupIds = await this.ancestorGroupIds(project);
    const found = await this.deps.labels.findByTitles({ projectIds: [project.id], groupIds }, wanted);
    const byTitle = new Map<string, number>();
    for (const label of found) if (!byTitle.has(label.title) || label.project_id !== null) byTitle.set(label.title, label.id);
    const missing = wanted.filter((title) => !byTitle.has(title));
    const created = await this.deps.labels.findOrCreateInProject(project.id, missing, DEFAULT_LABEL_COLOR, new Date().toISOString());
    for (const label of created) byTitle.set(label.title, label.id);
    return wanted.flatMap((title) => byTitle.get(title) ?? []);
  }

  /** The milestone, when it is the project's or one of its groups'; otherwise none (GitLab ignores it). */
  async milestoneId(project: ProjectRecord, milestoneId: number | null): Promise<number | null> {
    if (milestoneId === null || milestoneId === 0) return null;
    const milestone = await this.deps.milestones.findById(milestoneId);
    if (!milestone) return null;
    if (milestone.project_id === project.id) return milestone.id;
    return milestone.group_id !== null && (await this.ancestorGroupIds(project)).includes(milestone.group_id) ? milestone.id : null;
  }

  /**
   * The assignees kept: as GitLab's Community Edition, one (the first named) who exists and
   * may read the project; 0 or an empty list assigns nobody.
   */
  async assigneeIds(project: ProjectRecord, userIds: readonly number[]): Promise<number[]> {
    const first = userIds.find((id) => id > 0);
    if (first === undefined) return [];
    const [user] = await this.deps.users.findByIds([first]);
    return user && !user.is_ghost && (await this.canBeAssigned(project, user)) ? [user.id] : [];
  }

  private async canBeAssigned(project: ProjectRecord, user: UserRecord): Promise<boolean> {
    return user.state === 'active' && this.deps.permissions.canReadProject(project, user);
  }
}

/** `- [ ]` and `- [x]` items of a Markdown description (`*`, `+` and numbered lists too). */
export function taskCompletion(description: string | null): { count: number; completed_count: number } {
  let count = 0;
  let completed = 0;
  for (const match of (description ?? '').matchAll(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[([ xX])\](?=\s)/gm)) {
    count += 1;
    if (match[1] !== ' ') completed += 1;
  }
  return { count, completed_count: completed };
}

/** Taskable#task_status: `1 of 2 checklist items completed`, or '' for a blank description. */
export function taskStatus(description: string | null): string {
  if (description === null || description.trim() === '') return '';
  const { count, completed_count: completed } = taskCompletion(description);
  return `${completed} of ${count} checklist ${count === 1 ? 'item' : 'items'} completed`;
}

/** GitLab's human durations (`3h 30m`, `1w 2d`); the rules are in durations.ts. */
export { humanDuration } from './durations.ts';
