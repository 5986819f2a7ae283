/**
 * The runner protocol's routes under /api/v4 (reference/runner-protocol.md): registration,
 * verification and unregistration with a token in the JSON body, job requests and updates
 * with the runner or job token in the body, traces and artifacts with a `JOB-TOKEN` header.
 * Their callers are runners, not users: the user API's throttles do not count them (GitLab
 * counts a runner as authenticated and leaves it out of its user throttles), and they sign
 * in from the body, so the small-body rule for anonymous callers does not apply to them
 * (each handler checks its token and bounds what it reads).
 */
const RUNNER_PROTOCOL: ReadonlyArray<{ methods: readonly string[]; path: RegExp }> = [
  { methods: ['POST', 'DELETE'], path: /^\/api\/v4\/runners$/ },
  { methods: ['DELETE'], path: /^\/api\/v4\/runners\/managers$/ },
  { methods: ['POST'], path: /^\/api\/v4\/runners\/(?:verify|reset_authentication_token)$/ },
  { methods: ['POST'], path: /^\/api\/v4\/jobs\/request$/ },
  { methods: ['PUT'], path: /^\/api\/v4\/jobs\/\d+$/ },
  { methods: ['PATCH'], path: /^\/api\/v4\/jobs\/\d+\/trace$/ },
  { methods: ['POST'], path: /^\/api\/v4\/jobs\/\d+\/artifacts(?:\/authorize)?$/ },
  { methods: ['GET'], path: /^\/api\/v4\/jobs\/\d+\/artifacts$/ },
];

/** Whether `method url` (the raw request URL, query included) is a runner-protocol request. */
export function isRunnerProtocolRequest(method: string, url: string): boolean {
  const queryAt = url.indexOf('?');
  const path = (queryAt < 0 ? url : url.slice(0, queryAt)).replace(/\/+$/, '');
  return RUNNER_PROTOCOL.some((route) => route.methods.includes(method) && route.path.test(path));
}
