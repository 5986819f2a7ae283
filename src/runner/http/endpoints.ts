/**
 * gitlab-runner's names for the coordinator calls (the `endpoint` label of
 * gitlab_runner_api_request_statuses_total), from a request's method and API path.
 */
export type Endpoint =
  | 'register_runner'
  | 'verify_runner'
  | 'unregister_runner'
  | 'request_job'
  | 'update_job'
  | 'patch_trace'
  | 'upload_artifacts'
  | 'download_artifacts'
  | 'other';

export function endpointOf(method: string, path: string): Endpoint {
  const clean = path.replace(/^\/+/, '').split('?')[0];
  if (clean === 'runners') return method === 'DELETE' ? 'unregister_runner' : 'register_runner';
  if (clean === 'runners/verify') return 'verify_runner';
  if (clean === 'jobs/request') return 'request_job';
  if (/^jobs\/\d+$/.test(clean)) return 'update_job';
  if (/^jobs\/\d+\/trace$/.test(clean)) return 'patch_trace';
  if (/^jobs\/\d+\/artifacts$/.test(clean)) return method === 'GET' ? 'download_artifacts' : 'upload_artifacts';
  return 'other';
}
