import { invalidParam, missingParam } from '../../shared/errors.ts';
import type { GitFileAction } from '../../storage/git/types.ts';
import { messageAnswers } from '../http/error-responses.ts';
import { Params } from '../http/params.ts';
import type { ParamMap, ParamValue } from '../http/querystring.ts';

/**
 * The commits and files APIs answer what GitLab's commit service refuses as 400 with its
 * message, a missing start branch, start ref or file included (404s elsewhere).
 */
export const COMMIT_WRITE_ANSWERS = messageAnswers(400, ['GANTRY_E_BRANCH_NOT_FOUND', 'GANTRY_E_REF_NOT_FOUND', 'GANTRY_E_FILE_NOT_FOUND']);

const ACTIONS = ['create', 'update', 'move', 'delete', 'chmod'] as const;
const ENCODINGS = ['text', 'base64'] as const;

/** `content` in the given `encoding` (text by default) as bytes. */
export function decodeContent(params: Params, contentName: string, encodingName: string, required: boolean): Buffer | undefined {
  const encoding = params.oneOf(encodingName, ENCODINGS) ?? 'text';
  const content = params.string(contentName);
  if (content === undefined && required) throw missingParam(contentName);
  if (content === undefined) return undefined;
  return Buffer.from(content, encoding === 'base64' ? 'base64' : 'utf8');
}

function isMap(value: ParamValue | undefined): value is ParamMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `actions` array of a commit-create body; errors name the field as `actions[i][field]`. */
export function parseCommitActions(params: Params): GitFileAction[] {
  const raw = params.raw('actions');
  if (raw === undefined || raw === null) throw invalidParam('actions', 'is missing');
  if (!Array.isArray(raw)) throw invalidParam('actions', 'is invalid');
  if (raw.length === 0) throw invalidParam('actions', 'is empty');
  return raw.map((item, index) => {
    const prefix = `actions[${index}]`;
    if (!isMap(item)) throw invalidParam(prefix, 'is invalid');
    const fields: ParamMap = Object.create(null) as ParamMap;
    for (const [key, value] of Object.entries(item)) fields[`${prefix}[${key}]`] = value;
    return parseAction(new Params(fields), (field) => `${prefix}[${field}]`);
  });
}

function parseAction(fields: Params, name: (field: string) => string): GitFileAction {
  const action = fields.oneOf(name('action'), ACTIONS);
  if (action === undefined) throw invalidParam(name('action'), 'is missing');
  const filePath = fields.requiredString(name('file_path'));
  const lastCommitId = fields.string(name('last_commit_id'));
  const executeFilemode = fields.bool(name('execute_filemode'));
  switch (action) {
    case 'create':
    case 'update': {
      const content = decodeContent(fields, name('content'), name('encoding'), true) ?? Buffer.alloc(0);
      return action === 'create'
        ? { action, file_path: filePath, content, execute_filemode: executeFilemode }
        : { action, file_path: filePath, content, last_commit_id: lastCommitId, execute_filemode: executeFilemode };
    }
    case 'move': {
      const content = decodeContent(fields, name('content'), name('encoding'), false);
      return { action, file_path: filePath, previous_path: fields.requiredString(name('previous_path')), content, last_commit_id: lastCommitId };
    }
    case 'delete':
      return { action, file_path: filePath, last_commit_id: lastCommitId };
    case 'chmod':
      if (executeFilemode === undefined) throw invalidParam(name('execute_filemode'), 'is missing');
      return { action, file_path: filePath, execute_filemode: executeFilemode };
  }
}
