import type { TodoView } from '../../../services/planning/todos.ts';
import { serializeProjectNames } from '../namespaces/projects.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';
import { serializeIssue, type IssueJson } from './issues.ts';
import { serializeMergeRequestTarget, type MergeRequestTargetJson } from './merge-request-target.ts';

export interface TodoJson {
  id: number;
  project?: ReturnType<typeof serializeProjectNames> & { created_at: string };
  author: UserBasicJson | null;
  action_name: string;
  target_type: string;
  target: IssueJson | MergeRequestTargetJson | null;
  target_url: string;
  body: string;
  state: string;
  created_at: string;
  updated_at: string;
}

/** GitLab's Todo entity: `project` as ProjectIdentity (when the todo has one), the target as the issue (or merge request) entity, and the link to it (to the note, for a note's todo). */
export function serializeTodo(view: TodoView, externalUrl: string): TodoJson {
  const { todo, target, mergeRequest } = view;
  const anchor = todo.note_id === null ? '' : `#note_${todo.note_id}`;
  let targetUrl = target ? `${externalUrl}/${target.projectPath}/-/issues/${target.issue.iid}${anchor}` : '';
  if (mergeRequest) targetUrl = `${externalUrl}/${mergeRequest.projectPath}/-/merge_requests/${mergeRequest.record.iid}${anchor}`;
  return {
    id: todo.id,
    ...(view.project ? { project: { ...serializeProjectNames(view.project), created_at: view.project.project.created_at } } : {}),
    author: view.author ? serializeUserBasic(view.author, externalUrl) : null,
    action_name: todo.action,
    target_type: todo.target_type,
    target: target ? serializeIssue(target, externalUrl) : mergeRequest ? serializeMergeRequestTarget(mergeRequest.record, mergeRequest.projectPath, externalUrl) : null,
    target_url: targetUrl,
    body: todo.body,
    state: todo.state,
    created_at: todo.created_at,
    updated_at: todo.updated_at,
  };
}
