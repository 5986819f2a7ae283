import { Type, type Static, type TSchema } from '#deps/typebox';
import { invalidParam, invalidParams, missingParam } from '../../../shared/errors.ts';
import type { GitFileAction } from '../../../storage/git/types.ts';
import { messageAnswers } from '../../http/error-responses.ts';
import { coerceParams, Param } from '../../http/gitlab-params.ts';

/**
 * The commits and files APIs answer what GitLab's commit service refuses as 400 with its
 * message, a missing start branch, start ref or file included (404s elsewhere).
 */
export const COMMIT_WRITE_ANSWERS = messageAnswers(400, ['GANTRY_E_BRANCH_NOT_FOUND', 'GANTRY_E_REF_NOT_FOUND', 'GANTRY_E_FILE_NOT_FOUND']);

/** `:id` of every repository route. */
export const PROJECT_ID = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };

export const ProjectPath = Type.Object(PROJECT_ID);

export const ENCODINGS = ['text', 'base64'] as const;
export type ContentEncoding = (typeof ENCODINGS)[number];

/** `content` in the given `encoding` (text by default) as bytes. */
export function decodeContent(content: string, encoding: ContentEncoding | undefined): Buffer {
  return Buffer.from(content, encoding === 'base64' ? 'base64' : 'utf8');
}

/** The fields of one `actions[]` item of a commit. */
const ActionFields = Type.Object({
  action: Param.oneOf(['create', 'update', 'move', 'delete', 'chmod'], { description: 'What to do to the file' }),
  file_path: Param.string({ minLength: 1, description: 'The file acted on' }),
  content: Type.Optional(Param.string({ description: 'The new content (create and update; optional for move)' })),
  encoding: Type.Optional(Param.oneOf(ENCODINGS, { description: 'Encoding of content (default text)' })),
  previous_path: Type.Optional(Param.string({ description: 'The path a move starts from' })),
  last_commit_id: Type.Optional(Param.string({ description: 'The last commit the client knows of the file' })),
  execute_filemode: Type.Optional(Param.boolean({ description: 'Whether the file is executable' })),
});

/**
 * `actions` of a commit. Items are declared loosely so the route's reader passes them as
 * they came; parseCommitActions reads each by ActionFields and names problems `actions[i][field]`.
 */
export const COMMIT_ACTIONS = Type.Array(Type.Unknown(), {
  description: 'File actions, applied in order: {action (create, update, move, delete, chmod), file_path, content, encoding (text, base64), previous_path, last_commit_id, execute_filemode}',
});

/**
 * Reads one hash-shaped item of a list parameter by its schema, naming problems as
 * `prefix[field]` (grape names nested parameters so).
 */
export function readListItem<Schema extends TSchema>(schema: Schema, item: unknown, prefix: string): Static<Schema> {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalidParam(prefix, 'is invalid');
  const result = coerceParams(schema, item);
  if (!result.ok) throw invalidParams(result.problems.map(({ name, problem }) => ({ name: `${prefix}[${name}]`, problem })));
  // The reader checked the item against the schema.
  return result.value as Static<Schema>;
}

/**
 * The `actions` of a commit-create body, as they came (a JSON array of hashes or
 * `actions[][field]` form fields); errors name the field as `actions[i][field]`.
 */
export function parseCommitActions(raw: unknown): GitFileAction[] {
  if (raw === undefined || raw === null) throw missingParam('actions');
  if (!Array.isArray(raw)) throw invalidParam('actions', 'is invalid');
  if (raw.length === 0) throw invalidParam('actions', 'is empty');
  return raw.map((item, index) => toAction(readListItem(ActionFields, item, `actions[${index}]`), `actions[${index}]`));
}

function toAction(fields: Static<typeof ActionFields>, prefix: string): GitFileAction {
  const { action, file_path: filePath, last_commit_id: lastCommitId, execute_filemode: executeFilemode } = fields;
  const content = fields.content === undefined ? undefined : decodeContent(fields.content, fields.encoding);
  switch (action) {
    case 'create':
    case 'update':
      if (content === undefined) throw missingParam(`${prefix}[content]`);
      return action === 'create'
        ? { action, file_path: filePath, content, execute_filemode: executeFilemode }
        : { action, file_path: filePath, content, last_commit_id: lastCommitId, execute_filemode: executeFilemode };
    case 'move':
      if (fields.previous_path === undefined || fields.previous_path.trim() === '') throw missingParam(`${prefix}[previous_path]`);
      return { action, file_path: filePath, previous_path: fields.previous_path, content, last_commit_id: lastCommitId };
    case 'delete':
      return { action, file_path: filePath, last_commit_id: lastCommitId };
    case 'chmod':
      if (executeFilemode === undefined) throw missingParam(`${prefix}[execute_filemode]`);
      return { action, file_path: filePath, execute_filemode: executeFilemode };
  }
}
