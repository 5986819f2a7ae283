import type { NamespaceRecord } from '../../../../storage/types.ts';
import type { RunnerTokenView } from '../../../services/ci/runners/registration.ts';
import type { RunnerDetailView, RunnerManagerView, RunnerView } from '../../../services/ci/runners/views.ts';
import { groupWebUrl } from '../namespaces/groups.ts';
import { serializeProjectNames } from '../namespaces/projects.ts';

/** GitLab's `Entities::Runner` (lists), with `paused` as later GitLab versions add it. */
export function serializeRunner({ runner, online, status }: RunnerView) {
  return {
    id: runner.id,
    description: runner.description,
    ip_address: runner.ip_address,
    active: runner.active,
    paused: !runner.active,
    is_shared: runner.runner_type === 'instance_type',
    runner_type: runner.runner_type,
    name: runner.name,
    online,
    status,
  };
}

/**
 * GitLab's `Entities::RunnerDetails`. Its `token` is not shown: runner tokens are kept as
 * digests only, so nobody (administrators included) can read one back.
 */
export function serializeRunnerDetail(view: RunnerDetailView, externalUrl: string) {
  const { runner } = view;
  return {
    ...serializeRunner(view),
    tag_list: runner.tag_list,
    run_untagged: runner.run_untagged,
    locked: runner.locked,
    maximum_timeout: runner.maximum_timeout,
    access_level: runner.access_level,
    version: runner.version,
    revision: runner.revision,
    platform: runner.platform,
    architecture: runner.architecture,
    contacted_at: runner.contacted_at,
    maintenance_note: runner.maintenance_note,
    // Spec 02: a runner's projects show their id and names only.
    projects: view.projects.map(serializeProjectNames),
    groups: view.groups.map((group) => serializeRunnerGroup(group, externalUrl)),
  };
}

function serializeRunnerGroup(group: NamespaceRecord, externalUrl: string) {
  return { id: group.id, web_url: groupWebUrl(group, externalUrl), name: group.name };
}

/**
 * GitLab's `RunnerRegistrationDetails` (16.0 and later): `POST /runners`, `POST /runners/verify`
 * and `POST /user/runners` answer the runner's id, its token and when that expires (null:
 * never). gitlab-runner 13 reads only `token`.
 */
export function serializeRunnerRegistration({ runner, token, tokenExpiresAt }: RunnerTokenView) {
  return { id: runner.id, token, token_expires_at: tokenExpiresAt };
}

/** GitLab's `ResetTokenResult` of `reset_authentication_token`. */
export function serializeResetToken({ token, tokenExpiresAt }: RunnerTokenView) {
  return { token, token_expires_at: tokenExpiresAt };
}

/** GitLab's `Entities::Ci::RunnerManager`: one host of `GET /runners/:id/managers`. */
export function serializeRunnerManager({ manager, status }: RunnerManagerView) {
  return {
    id: manager.id,
    system_id: manager.system_id,
    version: manager.version,
    revision: manager.revision,
    platform: manager.platform,
    architecture: manager.architecture,
    created_at: manager.created_at,
    contacted_at: manager.contacted_at,
    ip_address: manager.ip_address,
    status,
  };
}

/** Answers of the registration-token resets (GitLab 14's shape: the token and its expiry, none here). */
export function serializeRegistrationToken(token: string) {
  return { token, token_expires_at: null };
}
