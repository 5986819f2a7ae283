import type { LabelView } from '../../../services/planning/labels.ts';
import { labelTextColor } from '../../../services/planning/label-colors.ts';

export interface LabelJson {
  id: number;
  name: string;
  color: string;
  text_color: string;
  description: string | null;
  open_issues_count?: number;
  closed_issues_count?: number;
  open_merge_requests_count?: number;
  subscribed: boolean;
  priority?: number | null;
  is_project_label?: boolean;
}

/** GitLab's Label entity; `forProject` adds the project-only fields (priority, is_project_label). Counts only when asked for; `subscribed` is the caller's. */
export function serializeLabel(view: LabelView, forProject: boolean, subscribed = false): LabelJson {
  const { label, counts } = view;
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    text_color: labelTextColor(label.color),
    description: label.description,
    ...(counts ? { open_issues_count: counts.opened, closed_issues_count: counts.closed, open_merge_requests_count: counts.openMergeRequests } : {}),
    subscribed,
    ...(forProject ? { priority: label.priority, is_project_label: label.project_id !== null } : {}),
  };
}
