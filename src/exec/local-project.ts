/**
 * The local project's CI settings, set as a maintainer sets them on a server: the variables of
 * `.gantry/variables.yml` created through `POST /projects/:id/variables` (so the server's own
 * validations apply, a masked value that cannot be masked included), the default branch protected
 * as a first push protects it (the instance's default), and every tag protected like it, so that protected variables
 * reach the jobs of those refs only. The instance allows requests to local addresses (GitLab's
 * `allow_local_requests_from_web_hooks_and_services`), so `include:remote` reaches the user's own
 * network as their shell does: the local coordinator serves that user alone.
 */
import type { ProjectRecord } from '../storage/types.ts';
import { ExecError } from './errors.ts';
import { VARIABLES_FILE, type LocalVariable } from './local-variables.ts';
import { postToLocalApi, type LocalCoordinator } from './session.ts';

const MAINTAINER = 40;

/** Answers the project with its default branch set (the snapshot's push left it unset: no branch existed then). */
export async function configureLocalProject(local: LocalCoordinator, pushed: ProjectRecord, defaultBranch: string, variables: readonly LocalVariable[]): Promise<ProjectRecord> {
  const { stores, protectedBranches, protectedTags } = local.coordinator.context;
  const project = pushed.default_branch === defaultBranch ? pushed : ((await stores.projects.update(pushed.id, { default_branch: defaultBranch })) ?? pushed);
  // As GitLab's first push does: the default branch gets the rule of the instance's default protection.
  await protectedBranches.protectDefaultBranch(project, defaultBranch);
  await protectedTags.create(project, '*', MAINTAINER);
  await local.coordinator.context.settings.update({ allow_local_requests_from_web_hooks_and_services: true });
  for (const variable of variables) {
    const answer = await postToLocalApi(local, `/projects/${project.id}/variables`, {
      key: variable.key,
      value: variable.value,
      variable_type: variable.file ? 'file' : 'env_var',
      masked: variable.masked,
      protected: variable.protected,
      environment_scope: variable.environmentScope,
    });
    if (!answer.ok) throw new ExecError(`${VARIABLES_FILE}: ${variable.key}: ${refusal(answer.text)}`);
  }
  return project;
}

/** The API's `{"message": {"value": ["..."]}}` as one line. */
function refusal(body: string): string {
  try {
    const { message } = JSON.parse(body) as { message?: unknown };
    if (typeof message === 'string') return message;
    if (typeof message === 'object' && message !== null) {
      return Object.entries(message as Record<string, unknown>).map(([field, reasons]) => `${field} ${Array.isArray(reasons) ? reasons.join(', ') : String(reasons)}`).join('; ');
    }
  } catch {
    // not JSON: the text as it is
  }
  return body.slice(0, 200);
}
