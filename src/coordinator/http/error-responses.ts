import { GantryError, type ErrorCode } from '../../shared/errors.ts';

/** The JSON bodies GitLab answers errors with: `{"message": ...}` or `{"error": ...}`. */
export type GitlabErrorBody =
  | { message: string | readonly string[] | Readonly<Record<string, readonly string[]>> }
  | { error: string; error_description?: string; scope?: string };

/** How the API answers one error code. */
export interface ErrorAnswer {
  readonly status: number;
  body(error: GantryError): GitlabErrorBody;
}

/** Answers a route gives differently from the table (GitLab's per-endpoint habits), declared in the route's `config`. */
export type ErrorAnswerOverrides = { readonly [C in ErrorCode]?: ErrorAnswer };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's own answers for some codes; the others answer as ERROR_ANSWERS says. */
    errorAnswers?: ErrorAnswerOverrides;
  }
}

/** `{"message": "<status line>"}`, the same text whatever the error says. */
function statusLine(status: number, text: string): ErrorAnswer {
  return { status, body: () => ({ message: `${status} ${text}` }) };
}

/** `{"message": "404 Project Not Found"}`; `details.resource` names the resource where GitLab is more specific. */
function notFound(resource: string): ErrorAnswer {
  return { status: 404, body: (error) => ({ message: `404 ${error.details.resource ?? resource} Not Found` }) };
}

/** `{"message": "<the error's message>"}`: GitLab's own wording, raised with the error. */
export function messageAnswer(status: number): ErrorAnswer {
  return { status, body: (error) => ({ message: error.message }) };
}

/** `{"message": "<status line> - <the error's message>"}`. */
function prefixed(status: number, statusText: string): ErrorAnswer {
  return { status, body: (error) => ({ message: `${status} ${statusText} - ${error.message}` }) };
}

/** `{"message": "403 Forbidden"}`, with ` - <reason>` when GitLab states one. */
const FORBIDDEN: ErrorAnswer = {
  status: 403,
  body: (error) => ({ message: error.details.reason === undefined ? '403 Forbidden' : `403 Forbidden - ${error.details.reason}` }),
};

/** `{"message": {"field": ["reason", ...]}}` */
export function fieldsAnswer(status: number): ErrorAnswer {
  return { status, body: (error) => ({ message: error.details.fields ?? {} }) };
}

/** Grape's `{"error": "title is missing, visibility does not have a valid value"}`. */
const PARAMS: ErrorAnswer = {
  status: 400,
  body: (error) => ({ error: (error.details.params ?? []).map(({ name, problem }) => `${name} ${problem}`).join(', ') }),
};

const INTERNAL = statusLine(500, 'Internal Server Error');

/** Every code's status and GitLab body. The compiler keeps it complete: a new code must be mapped here. */
export const ERROR_ANSWERS: { readonly [C in ErrorCode]: ErrorAnswer } = {
  GANTRY_E_PARAMS_INVALID: PARAMS,
  GANTRY_E_AT_LEAST_ONE_PARAM_REQUIRED: {
    status: 400,
    body: (error) => ({ error: `${(error.details.params ?? []).map(({ name }) => name).join(', ')} are missing, at least one parameter must be provided` }),
  },
  GANTRY_E_VALIDATION_FAILED: fieldsAnswer(400),
  GANTRY_E_REQUEST_MALFORMED: { status: 400, body: (error) => ({ error: error.message }) },
  GANTRY_E_MULTIPART_MALFORMED: prefixed(400, 'Bad request'),
  GANTRY_E_BODY_TOO_LARGE: statusLine(413, 'Request Entity Too Large'),
  GANTRY_E_MEDIA_TYPE_UNSUPPORTED: statusLine(415, 'Unsupported Media Type'),
  GANTRY_E_ROUTE_NOT_FOUND: { status: 404, body: () => ({ error: '404 Not Found' }) },
  GANTRY_E_CLIENT_GONE: statusLine(499, 'Client Closed Request'),
  GANTRY_E_SHUTTING_DOWN: statusLine(503, 'Service Unavailable'),

  GANTRY_E_AUTHENTICATION_REQUIRED: statusLine(401, 'Unauthorized'),
  GANTRY_E_CREDENTIALS_INVALID: statusLine(401, 'Unauthorized'),
  GANTRY_E_TOKEN_UNUSABLE: { status: 401, body: (error) => ({ error: 'invalid_token', error_description: error.message }) },
  GANTRY_E_TOKEN_SCOPE_INSUFFICIENT: {
    status: 403,
    body: (error) => ({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: (error.details.scopes ?? []).join(' '),
    }),
  },
  GANTRY_E_ACCESS_DENIED: FORBIDDEN,
  GANTRY_E_PROJECT_ARCHIVED: FORBIDDEN,
  GANTRY_E_LAST_OWNER: FORBIDDEN,
  GANTRY_E_TOKEN_NOT_OWNED: prefixed(400, 'Bad request'),
  GANTRY_E_ACCESS_TOKENS_HIDDEN: statusLine(401, 'Unauthorized'),
  GANTRY_E_ACCESS_TOKEN_REFUSED: prefixed(400, 'Bad request'),

  GANTRY_E_PROJECT_NOT_FOUND: notFound('Project'),
  GANTRY_E_GROUP_NOT_FOUND: notFound('Group'),
  GANTRY_E_NAMESPACE_NOT_FOUND: notFound('Namespace'),
  GANTRY_E_USER_NOT_FOUND: notFound('User'),
  GANTRY_E_MEMBER_NOT_FOUND: notFound('Member'),
  GANTRY_E_GROUP_LINK_NOT_FOUND: notFound('Group Link'),
  GANTRY_E_ACCESS_TOKEN_NOT_FOUND: notFound('Personal Access Token'),
  // `404 project Access Token Not Found`; plain `404 Not Found` where GitLab names nothing (rotate, administrators).
  GANTRY_E_RESOURCE_ACCESS_TOKEN_NOT_FOUND: { status: 404, body: (error) => ({ message: ['404', error.details.resource, 'Not Found'].filter(Boolean).join(' ') }) },
  GANTRY_E_IMPERSONATION_TOKEN_NOT_FOUND: notFound('Impersonation Token'),
  GANTRY_E_SSH_KEY_NOT_FOUND: notFound('Key'),
  GANTRY_E_GPG_KEY_NOT_FOUND: notFound('GPG Key'),
  GANTRY_E_EMAIL_NOT_FOUND: notFound('Email'),
  GANTRY_E_IDENTITY_NOT_FOUND: notFound('Identity'),
  GANTRY_E_DEPLOY_KEY_NOT_FOUND: notFound('Deploy Key'),
  GANTRY_E_CUSTOM_ATTRIBUTE_NOT_FOUND: notFound('Custom Attribute'),
  GANTRY_E_BRANCH_NOT_FOUND: notFound('Branch'),
  GANTRY_E_TAG_NOT_FOUND: notFound('Tag'),
  GANTRY_E_COMMIT_NOT_FOUND: notFound('Commit'),
  GANTRY_E_REF_NOT_FOUND: notFound('Ref'),
  GANTRY_E_TREE_NOT_FOUND: notFound('Tree'),
  GANTRY_E_BLOB_NOT_FOUND: notFound('Blob'),
  GANTRY_E_FILE_NOT_FOUND: notFound('File'),
  GANTRY_E_MERGE_BASE_NOT_FOUND: notFound('Merge Base'),
  GANTRY_E_PROTECTED_BRANCH_NOT_FOUND: statusLine(404, 'Not found'),
  GANTRY_E_PROTECTED_TAG_NOT_FOUND: statusLine(404, 'Not found'),
  GANTRY_E_RELEASE_NOT_FOUND: statusLine(404, 'Not Found'),
  GANTRY_E_RELEASE_LINK_NOT_FOUND: statusLine(404, 'Not found'),
  GANTRY_E_PACKAGE_NOT_FOUND: notFound('Package'),
  GANTRY_E_PACKAGE_FILE_NOT_FOUND: notFound('Package file'),
  // API::GenericPackages: `bad_request!('File is too large')`.
  GANTRY_E_PACKAGE_FILE_TOO_LARGE: prefixed(400, 'Bad request'),
  GANTRY_E_MILESTONE_NOT_FOUND: messageAnswer(400),
  GANTRY_E_JOB_NOT_FOUND: notFound('Job'),
  GANTRY_E_PIPELINE_NOT_FOUND: notFound('Pipeline'),
  GANTRY_E_RUNNER_NOT_FOUND: notFound('Runner'),
  GANTRY_E_ARTIFACT_NOT_FOUND: statusLine(404, 'Not Found'),
  GANTRY_E_TRACE_NOT_FOUND: statusLine(404, 'Not Found'),
  GANTRY_E_SIGNATURE_NOT_FOUND: notFound('Signature'),
  GANTRY_E_WIKI_NOT_FOUND: notFound('Wiki'),
  GANTRY_E_REPOSITORY_NOT_FOUND: notFound('Repository'),

  GANTRY_E_ALREADY_EXISTS: messageAnswer(409),
  GANTRY_E_HOUSEKEEPING_IN_PROGRESS: messageAnswer(409),
  GANTRY_E_PROJECT_PATH_TAKEN: fieldsAnswer(400),
  GANTRY_E_BRANCH_EXISTS: messageAnswer(400),
  GANTRY_E_TAG_EXISTS: messageAnswer(405),
  GANTRY_E_FILE_EXISTS: messageAnswer(400),

  GANTRY_E_REF_NAME_INVALID: messageAnswer(400),
  GANTRY_E_FILE_PATH_INVALID: messageAnswer(400),
  GANTRY_E_OBJECT_ID_INVALID: messageAnswer(400),
  GANTRY_E_KEY_FINGERPRINT_INVALID: { status: 400, body: () => ({ message: 'Failed to return the key' }) },
  GANTRY_E_BRANCH_PROTECTED: FORBIDDEN,
  GANTRY_E_TAG_PROTECTED: FORBIDDEN,
  GANTRY_E_DEFAULT_BRANCH_UNDELETABLE: messageAnswer(405),
  GANTRY_E_CONTENT_UNCHANGED: messageAnswer(400),
  GANTRY_E_FILE_CHANGED_SINCE_EDIT: messageAnswer(400),
  GANTRY_E_BRANCH_MOVED: messageAnswer(400),
  GANTRY_E_CHERRY_PICK_FAILED: messageAnswer(400),
  GANTRY_E_REVERT_FAILED: messageAnswer(400),
  GANTRY_E_TOO_FEW_REFS: messageAnswer(400),
  GANTRY_E_RELEASE_REF_MISSING: messageAnswer(422),
  GANTRY_E_RELEASE_DESCRIPTION_BLANK: messageAnswer(400),

  GANTRY_E_GROUP_SHARED_WITH_ITSELF: messageAnswer(400),
  GANTRY_E_PROJECT_SHARED_WITH_OWN_GROUP: messageAnswer(409),
  GANTRY_E_GROUP_TRANSFER_REFUSED: messageAnswer(400),
  GANTRY_E_TRANSFER_REFUSED: {
    status: 400,
    body: (error) => ({ message: `Failed to transfer project {:new_namespace=>[${JSON.stringify(error.details.reason ?? error.message)}]}` }),
  },

  GANTRY_E_JOB_NOT_RETRYABLE: FORBIDDEN,
  GANTRY_E_JOB_NOT_PLAYABLE: prefixed(400, 'Bad request'),
  GANTRY_E_JOB_TRANSITION_INVALID: messageAnswer(400),
  GANTRY_E_JOB_NOT_ERASABLE: FORBIDDEN,
  GANTRY_E_ARTIFACT_PATH_INVALID: statusLine(400, 'Bad request'),
  // Workhorse refuses an archive whose metadata it cannot build within its limits with 413.
  GANTRY_E_ARTIFACT_ARCHIVE_TOO_LARGE: prefixed(413, 'Request Entity Too Large'),
  GANTRY_E_ARTIFACT_REPORT_INVALID: messageAnswer(400),

  GANTRY_E_VARIABLE_NOT_FOUND: notFound('Variable'),
  GANTRY_E_VARIABLE_AMBIGUOUS: messageAnswer(409),
  GANTRY_E_TRIGGER_NOT_FOUND: notFound('Trigger'),
  GANTRY_E_PIPELINE_SCHEDULE_NOT_FOUND: notFound('Pipeline Schedule'),
  // GitLab finds environments with `find`: its RecordNotFound answers `404 Not found`.
  GANTRY_E_ENVIRONMENT_NOT_FOUND: statusLine(404, 'Not found'),
  // GitLab's `find_by_key!`: ActiveRecord's not-found answer.
  GANTRY_E_RESOURCE_GROUP_NOT_FOUND: statusLine(404, 'Not found'),
  GANTRY_E_LABEL_NOT_FOUND: notFound('Label'),
  GANTRY_E_ISSUE_NOT_FOUND: notFound('Issue'),
  // GitLab finds a todo with `find`: ActiveRecord's not-found answer, not a named resource.
  GANTRY_E_TODO_NOT_FOUND: statusLine(404, 'Not found'),
  GANTRY_E_MERGE_REQUEST_NOT_FOUND: notFound('Merge Request'),
  // GitLab finds a version with `merge_request_diffs.find`: ActiveRecord's not-found answer.
  GANTRY_E_MERGE_REQUEST_DIFF_VERSION_NOT_FOUND: statusLine(404, 'Not found'),
  // GitLab answers a merge request's branch errors as a list of messages.
  GANTRY_E_MERGE_REQUEST_EXISTS: { status: 409, body: (error) => ({ message: [error.message] }) },
  GANTRY_E_MERGE_REQUEST_BRANCHES_REFUSED: { status: 422, body: (error) => ({ message: [error.message] }) },
  GANTRY_E_MERGE_NOT_PERMITTED: statusLine(401, 'Unauthorized'),
  GANTRY_E_MERGE_REQUEST_NOT_MERGEABLE: statusLine(405, 'Method Not Allowed'),
  GANTRY_E_MERGE_REQUEST_BRANCH_UNMERGEABLE: messageAnswer(406),
  GANTRY_E_MERGE_REQUEST_SHA_MISMATCH: messageAnswer(409),
  GANTRY_E_MERGE_REQUEST_REBASE_FORBIDDEN: FORBIDDEN,
  GANTRY_E_MERGE_REQUEST_REBASE_REFUSED: statusLine(409, 'Conflict'),
  // GitLab's `not_allowed!` when MergeRequests::CreatePipelineService refuses.
  GANTRY_E_MERGE_REQUEST_PIPELINE_REFUSED: statusLine(405, 'Method Not Allowed'),
  GANTRY_E_MILESTONE_RECORD_NOT_FOUND: notFound('Milestone'),
  GANTRY_E_NOTE_NOT_FOUND: notFound('Note'),
  GANTRY_E_DISCUSSION_NOT_FOUND: notFound('Discussion'),
  // GitLab's bare `unauthorized!` and `not_found!` of POST .../approve and .../unapprove.
  GANTRY_E_MERGE_REQUEST_APPROVAL_REFUSED: statusLine(401, 'Unauthorized'),
  GANTRY_E_MERGE_REQUEST_APPROVAL_NOT_FOUND: statusLine(404, 'Not found'),
  GANTRY_E_NOTE_REFUSED: prefixed(400, 'Bad request'),
  GANTRY_E_AWARD_EMOJI_NOT_FOUND: notFound('Award Emoji'),
  GANTRY_E_AWARD_EMOJI_REFUSED: notFound('Award Emoji'),
  GANTRY_E_AWARD_EMOJI_NOT_OWNED: statusLine(401, 'Unauthorized'),
  GANTRY_E_ISSUE_MOVE_REFUSED: prefixed(400, 'Bad request'),
  GANTRY_E_LABEL_PROMOTION_REFUSED: messageAnswer(400),
  GANTRY_E_INTEGRATION_INACTIVE: prefixed(400, 'Bad request'),
  GANTRY_E_HOOK_NOT_FOUND: statusLine(404, 'Not found'),
  GANTRY_E_HOOK_INVALID: messageAnswer(422),
  GANTRY_E_HOOK_TEST_FAILED: messageAnswer(422),
  GANTRY_E_HOOK_TEST_RATE_LIMITED: messageAnswer(429),
  GANTRY_E_RUNNER_TOKEN_INVALID: statusLine(403, 'Forbidden'),
  GANTRY_E_RUNNER_SCOPE_INVALID: prefixed(400, 'Bad request'),
  GANTRY_E_RUNNER_MANAGER_NOT_FOUND: notFound('Runner manager not found'),
  GANTRY_E_RUNNER_ASSIGNMENT_REFUSED: FORBIDDEN,
  GANTRY_E_USER_STATE_REFUSED: messageAnswer(403),
  GANTRY_E_USER_SOLE_OWNER: messageAnswer(409),
  GANTRY_E_JOB_TOKEN_INVALID: statusLine(403, 'Forbidden'),
  GANTRY_E_JOB_NOT_RUNNING: FORBIDDEN,
  GANTRY_E_PIPELINES_DISABLED: FORBIDDEN,
  GANTRY_E_PIPELINE_REF_FORBIDDEN: fieldsAnswer(400),
  GANTRY_E_CI_CONFIG_MISSING: fieldsAnswer(400),
  GANTRY_E_CI_CONFIG_INVALID: fieldsAnswer(400),
  GANTRY_E_PIPELINE_FILTERED: fieldsAnswer(400),
  GANTRY_E_TRIGGER_TOKEN_INVALID: statusLine(404, 'Not Found'),
  GANTRY_E_TRIGGER_JOB_REFUSED: messageAnswer(401),

  GANTRY_E_REPOSITORY_CONTENT_REFUSED: prefixed(422, 'Unprocessable Entity'),
  GANTRY_E_BLAME_TOO_LARGE: prefixed(422, 'Unprocessable Entity'),
  GANTRY_E_GIT_BUSY: statusLine(503, 'Service Unavailable'),
  GANTRY_E_GIT_TOO_MANY_WAITING: statusLine(429, 'Too Many Requests'),
  GANTRY_E_GIT_PROTOCOL_UNSUPPORTED: statusLine(404, 'Not Found'),
  GANTRY_E_PUSH_MALFORMED: prefixed(400, 'Bad request'),
  GANTRY_E_GIT_FAILED: INTERNAL,

  // Raised before the coordinator serves anything; answered like any internal failure should one ever travel further.
  GANTRY_E_DATA_DIR_FOREIGN: INTERNAL,
  GANTRY_E_DATABASE_IN_USE: INTERNAL,
  GANTRY_E_SECRET_KEY_INVALID: INTERNAL,
  GANTRY_E_SECRET_KEY_MISMATCH: INTERNAL,
  GANTRY_E_SECRET_UNREADABLE: INTERNAL,

  GANTRY_E_INTERNAL: INTERNAL,
};

/** The answer to `error` on a route with `overrides` (its `config.errorAnswers`). */
export function errorAnswer(error: GantryError, overrides?: ErrorAnswerOverrides): { status: number; body: GitlabErrorBody } {
  const answer = overrides?.[error.code] ?? ERROR_ANSWERS[error.code];
  return { status: answer.status, body: answer.body(error) };
}

/** The status `error` answers with where no route says otherwise. */
export function errorStatus(error: GantryError): number {
  return ERROR_ANSWERS[error.code].status;
}

/** Overrides answering each of `codes` with `status` and `{"message": <the error's message>}`. */
export function messageAnswers(status: number, codes: readonly ErrorCode[]): ErrorAnswerOverrides {
  const answer = messageAnswer(status);
  return Object.fromEntries(codes.map((code) => [code, answer]));
}
