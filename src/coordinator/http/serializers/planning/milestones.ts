import type { MilestoneRecord } from '../../../../storage/types-planning.ts';
import type { MilestoneView } from '../../../services/planning/milestones.ts';

export interface MilestoneJson {
  id: number;
  iid: number;
  project_id?: number;
  group_id?: number;
  title: string;
  description: string | null;
  state: string;
  created_at: string;
  updated_at: string;
  due_date: string | null;
  start_date: string | null;
  expired: boolean;
  web_url: string;
}

/** Milestoneish#expired: a due date before today (UTC, GitLab's default time zone); no due date is not expired. */
export function milestoneExpired(dueDate: string | null, now: Date = new Date()): boolean {
  return dueDate !== null && dueDate < now.toISOString().slice(0, 10);
}

/** GitLab's Milestone entity: `project_id` on project milestones, `group_id` on group ones. */
export function serializeMilestone(view: MilestoneView, externalUrl: string): MilestoneJson {
  const { milestone, ownerPath } = view;
  const owner = milestone.project_id !== null ? { project_id: milestone.project_id } : { group_id: milestone.group_id ?? 0 };
  return {
    id: milestone.id,
    iid: milestone.iid,
    ...owner,
    title: milestone.title,
    description: milestone.description,
    state: milestone.state,
    created_at: milestone.created_at,
    updated_at: milestone.updated_at,
    due_date: milestone.due_date,
    start_date: milestone.start_date,
    expired: milestoneExpired(milestone.due_date),
    web_url: milestoneWebUrl(milestone, ownerPath, externalUrl),
  };
}

export function milestoneWebUrl(milestone: MilestoneRecord, ownerPath: string, externalUrl: string): string {
  return milestone.project_id !== null ? `${externalUrl}/${ownerPath}/-/milestones/${milestone.iid}` : `${externalUrl}/groups/${ownerPath}/-/milestones/${milestone.iid}`;
}
