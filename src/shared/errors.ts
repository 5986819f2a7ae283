/**
 * The one error module. Every error Gantry raises on purpose is a GantryError whose code names
 * what went wrong; it carries a human message and structured details, never an HTTP status or
 * body: the HTTP edge alone (src/coordinator/http/error-responses.ts) turns a code into
 * GitLab's status and body.
 */
export const ERROR_CATALOGUE = {
  // The request itself
  GANTRY_E_PARAMS_INVALID: 'Request parameters are missing, malformed or not allowed (each one with its problem).',
  GANTRY_E_AT_LEAST_ONE_PARAM_REQUIRED: 'An update names none of the parameters it could change.',
  GANTRY_E_VALIDATION_FAILED: 'The values given break a model rule (each field with its reasons).',
  GANTRY_E_REQUEST_MALFORMED: 'The request could not be parsed (invalid JSON, broken URL encoding).',
  GANTRY_E_MULTIPART_MALFORMED: 'A multipart body could not be read (no boundary, broken part headers, cut short).',
  GANTRY_E_BODY_TOO_LARGE: 'The request body, or a file in it, is over its size limit.',
  GANTRY_E_MEDIA_TYPE_UNSUPPORTED: 'The body is of a content type the route does not read.',
  GANTRY_E_ROUTE_NOT_FOUND: 'No route answers this method and path.',
  GANTRY_E_CLIENT_GONE: 'The client went away before its answer was ready; the work was stopped.',
  GANTRY_E_SHUTTING_DOWN: 'The coordinator is closing: work still running for the request was stopped.',

  // Who is asking
  GANTRY_E_AUTHENTICATION_REQUIRED: 'The request needs a signed-in caller and has no credential.',
  GANTRY_E_CREDENTIALS_INVALID: 'The credential given matches no token or user.',
  GANTRY_E_TOKEN_UNUSABLE: 'The token exists but no longer works (expired or revoked).',
  GANTRY_E_TOKEN_SCOPE_INSUFFICIENT: "The token's scopes do not cover the request.",
  GANTRY_E_ACCESS_DENIED: 'The caller may see the resource but not do this with it.',
  GANTRY_E_PROJECT_ARCHIVED: 'The project is archived: its repository takes no pushes.',
  GANTRY_E_LAST_OWNER: 'The change would leave a group without an owner.',
  GANTRY_E_TOKEN_NOT_OWNED: 'Only its owner or an administrator may revoke a token.',
  GANTRY_E_ACCESS_TOKENS_HIDDEN: 'The caller may read the project or group but not see or rotate its access tokens (GitLab answers 401).',
  GANTRY_E_ACCESS_TOKEN_REFUSED: 'A project or group access token may not be created, revoked or rotated as asked (GitLab gives the reason).',

  // Resources that do not exist (or that the caller may not see)
  GANTRY_E_PROJECT_NOT_FOUND: 'No such project, or the caller may not see it.',
  GANTRY_E_GROUP_NOT_FOUND: 'No such group, or the caller may not see it.',
  GANTRY_E_NAMESPACE_NOT_FOUND: 'No such namespace, or the caller may not use it.',
  GANTRY_E_USER_NOT_FOUND: 'No such user.',
  GANTRY_E_MEMBER_NOT_FOUND: 'The user is not a member of the project or group.',
  GANTRY_E_GROUP_LINK_NOT_FOUND: 'The project or group is not shared with that group.',
  GANTRY_E_ACCESS_TOKEN_NOT_FOUND: 'No such personal access token.',
  GANTRY_E_IMPERSONATION_TOKEN_NOT_FOUND: 'No such impersonation token for the user.',
  GANTRY_E_RESOURCE_ACCESS_TOKEN_NOT_FOUND: 'No such access token of the project or group.',
  GANTRY_E_SSH_KEY_NOT_FOUND: 'No such SSH key for the user.',
  GANTRY_E_GPG_KEY_NOT_FOUND: 'No such GPG key for the user.',
  GANTRY_E_EMAIL_NOT_FOUND: 'No such secondary e-mail address of the user.',
  GANTRY_E_IDENTITY_NOT_FOUND: 'The user has no identity at that external provider.',
  GANTRY_E_DEPLOY_KEY_NOT_FOUND: 'No such deploy key, or it is not enabled for the project.',
  GANTRY_E_CUSTOM_ATTRIBUTE_NOT_FOUND: 'The subject has no custom attribute of that key.',
  GANTRY_E_BRANCH_NOT_FOUND: 'No such branch in the repository.',
  GANTRY_E_TAG_NOT_FOUND: 'No such tag in the repository.',
  GANTRY_E_COMMIT_NOT_FOUND: 'No commit for that SHA or ref.',
  GANTRY_E_REF_NOT_FOUND: 'A ref (branch, tag or SHA) named in the request resolves to no commit.',
  GANTRY_E_TREE_NOT_FOUND: 'The ref of a tree listing resolves to no commit.',
  GANTRY_E_BLOB_NOT_FOUND: 'No blob with that id.',
  GANTRY_E_FILE_NOT_FOUND: 'No file at that path (in that ref), or an archive of an unknown ref.',
  GANTRY_E_MERGE_BASE_NOT_FOUND: 'The refs share no history.',
  GANTRY_E_PROTECTED_BRANCH_NOT_FOUND: 'No protection rule of that name.',
  GANTRY_E_PROTECTED_TAG_NOT_FOUND: 'No tag protection rule of that name.',
  GANTRY_E_RELEASE_NOT_FOUND: 'No release for that tag.',
  GANTRY_E_RELEASE_LINK_NOT_FOUND: 'No asset link of that id or file path in the release.',
  GANTRY_E_PACKAGE_NOT_FOUND: 'No package of that id, or of that name and version, in the project.',
  GANTRY_E_PACKAGE_FILE_NOT_FOUND: 'No file of that id or name in the package.',
  GANTRY_E_MILESTONE_NOT_FOUND: 'A milestone named for a release does not exist.',
  GANTRY_E_JOB_NOT_FOUND: 'The pipeline has no job of that id.',
  GANTRY_E_PIPELINE_NOT_FOUND: 'No such pipeline in the project.',
  GANTRY_E_RUNNER_NOT_FOUND: 'No such runner (or it is not enabled for the project).',
  GANTRY_E_TRACE_NOT_FOUND: 'The job has no trace (yet, or any more).',
  GANTRY_E_ARTIFACT_NOT_FOUND: 'The job has no (unexpired) artifacts archive, or the archive has no such file.',
  GANTRY_E_SIGNATURE_NOT_FOUND: 'The commit carries no GPG signature (unsigned, signed with SSH or X.509, or too large to read).',
  GANTRY_E_WIKI_NOT_FOUND: 'Gantry has no wikis: a wiki repository is never found.',
  GANTRY_E_REPOSITORY_NOT_FOUND: 'The project has no repository on disk yet.',

  // Resources that already exist
  GANTRY_E_ALREADY_EXISTS: 'What the request creates, or a unique value it sets, already exists (the resource is named).',
  GANTRY_E_HOUSEKEEPING_IN_PROGRESS: "Housekeeping of the repository is queued or running already (GitLab's lease; the message is GitLab's).",
  GANTRY_E_PROJECT_PATH_TAKEN: "Another project of the namespace has the project's name or path.",
  GANTRY_E_BRANCH_EXISTS: 'A branch of that name already exists.',
  GANTRY_E_TAG_EXISTS: 'A tag of that name already exists.',
  GANTRY_E_FILE_EXISTS: 'A file or directory is already at the path a commit action creates or moves to.',

  // Repository writes
  GANTRY_E_REF_NAME_INVALID: 'A branch or tag name git does not accept (or one clashing with an existing ref path).',
  GANTRY_E_FILE_PATH_INVALID: 'A commit action names a path outside the repository, through .git, or otherwise unusable.',
  GANTRY_E_OBJECT_ID_INVALID: 'An object id that is not a full hexadecimal id.',
  GANTRY_E_KEY_FINGERPRINT_INVALID: 'A key fingerprint that is neither MD5 colon hex nor `SHA256:` and 32 bytes of base64.',
  GANTRY_E_BRANCH_PROTECTED: 'A protected branch the caller may not push to or remove.',
  GANTRY_E_TAG_PROTECTED: 'A protected tag the caller may not create or delete.',
  GANTRY_E_DEFAULT_BRANCH_UNDELETABLE: "The project's default branch cannot be deleted.",
  GANTRY_E_CONTENT_UNCHANGED: 'An update would write content identical to the current content.',
  GANTRY_E_FILE_CHANGED_SINCE_EDIT: 'A file changed after the last_commit_id the editor started from.',
  GANTRY_E_BRANCH_MOVED: 'The branch moved while the commit was being written (another push won).',
  GANTRY_E_CHERRY_PICK_FAILED: 'The commit does not apply cleanly onto the branch, or changes nothing there.',
  GANTRY_E_REVERT_FAILED: 'The inverse of the commit does not apply cleanly onto the branch, or changes nothing there.',
  GANTRY_E_TOO_FEW_REFS: 'A merge base needs at least two refs.',
  GANTRY_E_RELEASE_REF_MISSING: 'A release for a tag that does not exist yet needs a ref to create it from.',
  GANTRY_E_RELEASE_DESCRIPTION_BLANK: 'Release notes given with a tag are blank.',
  GANTRY_E_PACKAGE_FILE_TOO_LARGE: 'A package file is over the largest size a package file may have.',

  // Sharing and moving
  GANTRY_E_GROUP_SHARED_WITH_ITSELF: 'A group cannot be shared with itself.',
  GANTRY_E_PROJECT_SHARED_WITH_OWN_GROUP: 'A project cannot be shared with the group it is in or one of its ancestors.',
  GANTRY_E_TRANSFER_REFUSED: 'The project cannot move into that namespace (the reason is given).',
  GANTRY_E_GROUP_TRANSFER_REFUSED: 'The group cannot move under that parent or to the top level (the reason is given).',

  // Pipelines and jobs
  GANTRY_E_JOB_NOT_RETRYABLE: 'The job cannot be retried in its current state.',
  GANTRY_E_JOB_NOT_PLAYABLE: 'The job is not a manual or delayed action that can be played now.',
  GANTRY_E_JOB_TRANSITION_INVALID: 'The job state machine has no such transition from the current status.',
  GANTRY_E_JOB_NOT_ERASABLE: 'The job is not finished, or has neither a trace nor artifacts to erase.',
  GANTRY_E_ARTIFACT_PATH_INVALID: 'A path inside an artifacts archive that is empty, absolute, has a NUL byte or climbs out with `..`.',
  GANTRY_E_ARTIFACT_ARCHIVE_TOO_LARGE: 'An uploaded zip archive has more members, or a larger central directory, than an artifacts archive may have.',
  GANTRY_E_ARTIFACT_REPORT_INVALID: 'An uploaded dotenv report is over its limits or not made of KEY=VALUE lines (GitLab refuses it the same way).',

  // CI settings: variables, triggers, pipeline schedules, environments
  GANTRY_E_VARIABLE_NOT_FOUND: 'No CI variable of that key (and environment scope) for the project, group or pipeline schedule.',
  GANTRY_E_VARIABLE_AMBIGUOUS: 'Several variables share the key in different environment scopes and the request names none.',
  GANTRY_E_TRIGGER_NOT_FOUND: 'The project has no pipeline trigger of that id.',
  GANTRY_E_PIPELINE_SCHEDULE_NOT_FOUND: 'The project has no pipeline schedule of that id, or the caller may not read its schedules.',
  GANTRY_E_ENVIRONMENT_NOT_FOUND: 'The project has no environment of that id.',
  GANTRY_E_RESOURCE_GROUP_NOT_FOUND: 'The project has no resource group of that key.',

  // Planning: issues, labels, milestones
  GANTRY_E_ISSUE_NOT_FOUND: 'The project has no issue of that iid, or the caller may not see it (confidential).',
  GANTRY_E_LABEL_NOT_FOUND: 'The project or group has no label of that id or name.',
  GANTRY_E_TODO_NOT_FOUND: 'The caller has no todo of that id (another user\'s todo is not theirs to see).',
  GANTRY_E_MERGE_REQUEST_NOT_FOUND: 'The project has no merge request of that iid, or the caller may not read its merge requests.',
  GANTRY_E_MERGE_REQUEST_DIFF_VERSION_NOT_FOUND: 'The merge request has no diff version of that id.',
  GANTRY_E_MERGE_REQUEST_EXISTS: 'Another open merge request already joins the same source and target branches.',
  GANTRY_E_MERGE_REQUEST_BRANCHES_REFUSED: 'Source and target are the same branch of the same project, or the target project is outside the source\'s fork network.',
  GANTRY_E_MERGE_NOT_PERMITTED: 'The caller may neither push nor merge into the target branch (GitLab answers 401).',
  GANTRY_E_MERGE_REQUEST_NOT_MERGEABLE: 'The merge request cannot be merged now: not open, a draft, or its required pipeline has not succeeded.',
  GANTRY_E_MERGE_REQUEST_BRANCH_UNMERGEABLE: 'The source does not merge into the target: conflicts, or not fast-forwardable under a fast-forward merge method.',
  GANTRY_E_MERGE_REQUEST_SHA_MISMATCH: 'The `sha` given is not the tip of the source branch.',
  GANTRY_E_MERGE_REQUEST_REBASE_FORBIDDEN: 'The source branch of the merge request to rebase is gone, the caller may not push to it, or it is protected from force pushes.',
  GANTRY_E_MERGE_REQUEST_REBASE_REFUSED: 'The merge request to rebase is not open.',
  GANTRY_E_MERGE_REQUEST_PIPELINE_REFUSED: 'No pipeline can be created for the merge request (it has no commits yet, or is closed or merged).',
  GANTRY_E_MILESTONE_RECORD_NOT_FOUND: 'The project or group has no milestone of that id.',
  GANTRY_E_NOTE_NOT_FOUND: 'The issue has no note of that id (it may be of another issue), or the caller may not read it (internal).',
  GANTRY_E_MERGE_REQUEST_APPROVAL_REFUSED: 'The caller may not approve the merge request: not allowed to update it, already approved, or it is not open.',
  GANTRY_E_MERGE_REQUEST_APPROVAL_NOT_FOUND: 'The caller has not approved the merge request.',
  GANTRY_E_DISCUSSION_NOT_FOUND: 'The issue or merge request has no thread of that id the caller may read.',
  GANTRY_E_NOTE_REFUSED: 'The note cannot be written or resolved so: a system note replied to, a note that is not resolvable, a diff position off the request\'s diff.',
  GANTRY_E_AWARD_EMOJI_NOT_FOUND: 'The issue or note has no award emoji of that id.',
  GANTRY_E_AWARD_EMOJI_REFUSED: 'The emoji cannot be awarded (unknown name, already awarded, a system note, a locked discussion); GitLab answers 404 with the reason.',
  GANTRY_E_AWARD_EMOJI_NOT_OWNED: 'Only whoever awarded an emoji (or an administrator) may take it back.',
  GANTRY_E_ISSUE_MOVE_REFUSED: 'The issue cannot move to that project (the reason is given).',
  GANTRY_E_LABEL_PROMOTION_REFUSED: 'The label cannot become a group label (its project is in no group).',
  // Integrations
  GANTRY_E_INTEGRATION_INACTIVE: 'The integration is deprecated and inactive: its calls are refused (cluster-deploy).',
  GANTRY_E_HOOK_NOT_FOUND: 'The project (or group, or instance) has no webhook of that id.',
  GANTRY_E_HOOK_TEST_RATE_LIMITED: "A webhook's test call was made more than 5 times in a minute by the same user (GitLab's web_hook_test limit).",
  GANTRY_E_HOOK_INVALID: "A webhook's URL or branch filter is not one it can have.",
  GANTRY_E_HOOK_TEST_FAILED: "A webhook's test call had nothing to send, or its receiver did not answer 2xx (GitLab's message or the answer's body is given).",
  // Runners
  GANTRY_E_RUNNER_TOKEN_INVALID: 'A runner-protocol token (a registration token or a runner token) matches nothing.',
  GANTRY_E_JOB_TOKEN_INVALID: 'A job token (JOB-TOKEN) matches no job, or not one that may do this (its own job for uploads; a running job of the same project for downloads).',
  GANTRY_E_JOB_NOT_RUNNING: 'The job is no longer running (finished, canceled or erased): its token may not send it anything more.',
  GANTRY_E_RUNNER_SCOPE_INVALID: 'A runner created by a user names no group or project, or one that does not exist (`Missing/invalid group`).',
  GANTRY_E_RUNNER_MANAGER_NOT_FOUND: 'The runner has no manager of that system id.',
  GANTRY_E_RUNNER_ASSIGNMENT_REFUSED: 'The runner cannot be enabled in or disabled for the project (shared, a group runner, locked, or its only project); the reason is given.',
  GANTRY_E_PIPELINES_DISABLED: 'CI/CD (jobs) is disabled for the project: no pipeline may be created.',
  GANTRY_E_PIPELINE_REF_FORBIDDEN: 'The caller may not run pipelines for that protected branch or tag.',
  GANTRY_E_CI_CONFIG_MISSING: 'The project has no CI configuration file at that commit.',
  GANTRY_E_CI_CONFIG_INVALID: 'The CI configuration has errors (each one listed); the pipeline is not created.',
  GANTRY_E_PIPELINE_FILTERED: 'The pipeline would have no jobs (workflow rules, or no job matches the ref).',
  GANTRY_E_TRIGGER_TOKEN_INVALID: 'No pipeline trigger of the project has that token (nor a running job whose user may read the project).',
  GANTRY_E_TRIGGER_JOB_REFUSED: 'A job token given as a trigger token whose job is not running, is erased, or whose project is deleted; the reason is given.',

  // Git
  GANTRY_E_REPOSITORY_CONTENT_REFUSED: 'The repository holds content git refuses to serve (a .git or .. entry, a corrupt tree).',
  GANTRY_E_BLAME_TOO_LARGE: 'The file is over the blame size limit.',
  GANTRY_E_GIT_BUSY: 'Too much heavy git work is waiting in all; retry later.',
  GANTRY_E_GIT_TOO_MANY_WAITING: 'This requester already has too much heavy git work waiting; retry later.',
  GANTRY_E_GIT_PROTOCOL_UNSUPPORTED: "Git's dumb HTTP protocol is not served; only the smart one.",
  GANTRY_E_PUSH_MALFORMED: 'A push request whose ref commands cannot be read.',
  GANTRY_E_GIT_FAILED: 'A git command failed for a reason nobody planned for (the command is in the log).',

  // Starting a coordinator
  GANTRY_E_DATA_DIR_FOREIGN: "The data directory is not the one of this database (its marker names another installation, or it has none): the coordinator does not start.",
  GANTRY_E_DATABASE_IN_USE: 'Another coordinator process serves from this SQLite database file, which takes one: the coordinator does not start.',
  GANTRY_E_SECRET_KEY_INVALID: 'A configured secret key is not 32 bytes written in hexadecimal or base64: the coordinator does not start.',
  GANTRY_E_SECRET_KEY_MISMATCH: "The database's secrets were sealed with a secret key this coordinator does not have: the coordinator does not start.",
  GANTRY_E_SECRET_UNREADABLE: 'A stored secret does not open with any key of the coordinator (sealed with another key, or altered).',

  GANTRY_E_USER_STATE_REFUSED: "The user's state does not allow this change (banning a blocked user, unbanning an active one).",
  GANTRY_E_USER_SOLE_OWNER: 'The user is the only owner of a group, so is deleted only with hard_delete (which deletes the group too).',

  GANTRY_E_INTERNAL: 'An unexpected failure (a bug); the log has the stack.',
} as const satisfies Record<`GANTRY_E_${string}`, string>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** One problem with one request parameter: `{ name: 'visibility', problem: 'does not have a valid value' }`. */
export interface ParamProblem {
  readonly name: string;
  readonly problem: string;
}

/** What a code alone does not say. Every field is optional; each code documents which it uses. */
export interface ErrorDetails {
  /** The resource as GitLab names it, where the code's own name is not enough ("User with ID or username 'x'", "Member"). */
  readonly resource?: string;
  /** Parameter problems, in the order found. */
  readonly params?: readonly ParamProblem[];
  /** Field → reasons of a failed validation or a taken name. */
  readonly fields?: Readonly<Record<string, readonly string[]>>;
  /** Token scopes any one of which would allow the request. */
  readonly scopes?: readonly string[];
  /** GitLab's own wording of a refusal, where clients read it ("Must be admin to use sudo"). */
  readonly reason?: string;
}

export class GantryError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  /** Without a message, the catalogue's description of the code is the message. */
  constructor(code: ErrorCode, message?: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message ?? ERROR_CATALOGUE[code], options);
    this.name = 'GantryError';
    this.code = code;
    this.details = details;
  }
}

export function isGantryError(value: unknown): value is GantryError {
  return value instanceof GantryError;
}

/** A required parameter that is absent or blank. */
export function missingParam(name: string): GantryError {
  return invalidParams([{ name, problem: 'is missing' }]);
}

/** A parameter with a value the route cannot use (`is invalid`, `does not have a valid value`, `is empty`, ...). */
export function invalidParam(name: string, problem = 'is invalid'): GantryError {
  return invalidParams([{ name, problem }]);
}

export function invalidParams(params: readonly ParamProblem[]): GantryError {
  return new GantryError('GANTRY_E_PARAMS_INVALID', params.map(({ name, problem }) => `${name} ${problem}`).join(', '), { params });
}

/** Grape's `at_least_one_of`: none of `names` was given. */
export function atLeastOneOf(names: readonly string[], message?: string): GantryError {
  return new GantryError('GANTRY_E_AT_LEAST_ONE_PARAM_REQUIRED', message ?? `one of ${names.join(', ')} is required`, {
    params: names.map((name) => ({ name, problem: 'is missing' })),
  });
}

/** Model validations that failed, field by field. */
export function validationFailed(fields: Readonly<Record<string, readonly string[]>>): GantryError {
  const summary = Object.entries(fields).map(([field, reasons]) => `${field} ${reasons.join(', ')}`).join('; ');
  return new GantryError('GANTRY_E_VALIDATION_FAILED', summary, { fields });
}

/** The caller may not do this; `reason` is GitLab's wording where it states one. */
export function accessDenied(reason?: string): GantryError {
  return new GantryError('GANTRY_E_ACCESS_DENIED', reason, reason === undefined ? {} : { reason });
}

/** The token lacks a scope; `scopes` lists those that would do. */
export function insufficientScope(scopes: readonly string[]): GantryError {
  return new GantryError('GANTRY_E_TOKEN_SCOPE_INSUFFICIENT', `the token needs one of the scopes: ${scopes.join(' ')}`, { scopes });
}

/** An error's code and message for a health check's answer (the first line, at most 200 characters). */
export function errorSummary(error: unknown): string {
  const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : undefined;
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}
