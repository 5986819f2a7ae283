import type { RepositoryManager } from '../../../storage/git/types.ts';
import type { NamespacesStore, ProjectsStore, UsersStore } from '../../../storage/types.ts';
import type { PushEvent } from '../events.ts';
import { buildPushData } from '../integrations/push-data.ts';
import { projectFullPathIn } from '../namespaces/project-full-path.ts';

/**
 * What a queued delivery is built from, kept in the delivery row: a push names its SHAs (its
 * commits are read when it is sent); the other events carry the payload built when they
 * happened, since their `changes` and states are of that moment.
 */
export type HookEvent = { kind: 'push'; push: PushEvent } | { kind: 'payload'; payload: Record<string, unknown> };

/** A hook scope (GitLab's name, the `trigger` of its logs) and the event header of each kind. */
export const TRIGGERS = {
  push: { trigger: 'push_hooks', header: 'Push Hook' },
  tag_push: { trigger: 'tag_push_hooks', header: 'Tag Push Hook' },
  issue: { trigger: 'issue_hooks', header: 'Issue Hook' },
  confidential_issue: { trigger: 'confidential_issue_hooks', header: 'Confidential Issue Hook' },
  note: { trigger: 'note_hooks', header: 'Note Hook' },
  confidential_note: { trigger: 'confidential_note_hooks', header: 'Confidential Note Hook' },
  merge_request: { trigger: 'merge_request_hooks', header: 'Merge Request Hook' },
  job: { trigger: 'job_hooks', header: 'Job Hook' },
  pipeline: { trigger: 'pipeline_hooks', header: 'Pipeline Hook' },
  release: { trigger: 'release_hooks', header: 'Release Hook' },
  deployment: { trigger: 'deployment_hooks', header: 'Deployment Hook' },
  member: { trigger: 'member_hooks', header: 'Member Hook' },
  subgroup: { trigger: 'subgroup_hooks', header: 'Subgroup Hook' },
  // System hooks send every event under one header.
  repository_update: { trigger: 'repository_update_hooks', header: 'System Hook' },
  system: { trigger: 'system_hooks', header: 'System Hook' },
} as const;

export type HookTrigger = (typeof TRIGGERS)[keyof typeof TRIGGERS];

export interface HookPayloadDeps {
  projects: Pick<ProjectsStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  externalUrl: string;
}

/** Payloads built lately, so that the hooks of one event share one build (one git walk). */
const MEMO_SIZE = 64;

/**
 * GitLab's hook payloads, built when the delivery is sent (the event only names what changed).
 * `undefined` when there is nothing to send any more (the project or repository is gone).
 */
export class HookPayloads {
  private readonly memo = new Map<string, Promise<Record<string, unknown> | undefined>>();

  constructor(private readonly deps: HookPayloadDeps) {}

  build(event: HookEvent): Promise<Record<string, unknown> | undefined> {
    if (event.kind === 'payload') return Promise.resolve(event.payload);
    const key = JSON.stringify(event);
    const known = this.memo.get(key);
    if (known) return known;
    const built = this.buildPush(event.push).catch((error: unknown) => {
      this.memo.delete(key);
      throw error;
    });
    this.memo.set(key, built);
    if (this.memo.size > MEMO_SIZE) this.memo.delete(this.memo.keys().next().value as string);
    return built;
  }

  private async buildPush(push: PushEvent): Promise<Record<string, unknown> | undefined> {
    const project = await this.deps.projects.findById(push.project_id);
    if (!project || project.pending_delete || !(await this.deps.repositories.exists(project.id))) return undefined;
    const namespace = await this.deps.namespaces.findById(project.namespace_id);
    const projectPath = projectFullPathIn(namespace, project);
    const pusher = push.user_id === null ? null : ((await this.deps.users.findById(push.user_id)) ?? null);
    const data = await buildPushData(this.deps.repositories.open(project.id), {
      project, projectPath, namespaceName: namespace?.name ?? '', externalUrl: this.deps.externalUrl, ref: push.ref, before: push.before, after: push.after, pusher,
    });
    // GitLab's push hooks name the pusher's public address; Gantry has no public-email field, so it stays blank as for integrations.
    return data;
  }
}
