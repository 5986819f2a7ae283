import type { LabelRecord } from './types-planning.ts';

export interface LabelPromotionsStore {
  /**
   * In one transaction: the project label becomes a label of `groupId` (keeping its id), or,
   * when the group already has a label of its title, that one is kept; then every label of
   * that title of the group's own projects is merged into it (their issues and subscribers
   * move to it, and they are deleted). Answers the group label; undefined when the label is
   * no longer a project label.
   */
  promote(labelId: number, groupId: number, at: string): Promise<LabelRecord | undefined>;
}
