import type { UserRecord } from '../../../../storage/types.ts';
import type { EventPushData, EventRecord } from '../../../../storage/types-events.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

export interface EventNoteJson {
  id: number;
  type: null;
  body: string;
  attachment: null;
  author: UserBasicJson | null;
  created_at: string;
  updated_at: string;
  system: false;
  noteable_id: number;
  noteable_type: string;
  noteable_iid: number | null;
  resolvable: false;
  confidential: false;
  internal: false;
}

export interface EventJson {
  id: number;
  project_id: number;
  action_name: string;
  target_id: number | null;
  target_iid: number | null;
  target_type: string | null;
  author_id: number;
  target_title: string | null;
  created_at: string;
  author: UserBasicJson | null;
  author_username: string | null;
  push_data?: EventPushData;
  note?: EventNoteJson;
}

/** GitLab's Event entity: `push_data` only on push events, `note` only on comments. */
export function serializeEvent(event: EventRecord, authors: ReadonlyMap<number, UserRecord>, externalUrl: string): EventJson {
  const author = authors.get(event.author_id);
  const authorJson = author ? serializeUserBasic(author, externalUrl) : null;
  const json: EventJson = {
    id: event.id,
    project_id: event.project_id,
    action_name: actionName(event),
    target_id: event.target_id,
    target_iid: event.target_iid,
    target_type: event.target_type,
    author_id: event.author_id,
    target_title: event.target_title,
    created_at: event.created_at,
    author: authorJson,
    author_username: author?.username ?? null,
  };
  if (event.push_data) json.push_data = event.push_data;
  if (event.note) {
    const { note } = event;
    json.note = {
      id: note.id, type: null, body: note.body, attachment: null, author: authorJson, created_at: note.created_at, updated_at: note.created_at, system: false,
      noteable_id: note.noteable_id, noteable_type: note.noteable_type, noteable_iid: note.noteable_iid, resolvable: false, confidential: false, internal: false,
    };
  }
  return json;
}

/** GitLab's Event#action_name: a created or reopened target reads "opened", a merge "accepted". */
function actionName(event: EventRecord): string {
  switch (event.action) {
    case 'pushed':
      if (event.push_data?.action === 'created') return 'pushed new';
      return event.push_data?.action === 'removed' ? 'deleted' : 'pushed to';
    case 'closed': return 'closed';
    case 'merged': return 'accepted';
    case 'joined': return 'joined';
    case 'left': return 'left';
    case 'expired': return 'removed due to membership expiration from';
    case 'destroyed': return 'destroyed';
    case 'commented': return 'commented on';
    case 'created': return event.target_type === null ? 'created' : 'opened';
    default: return 'opened';
  }
}
