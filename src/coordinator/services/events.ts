import { EventEmitter } from 'node:events';
import type { NamespaceRecord, ProjectRecord, UserRecord } from '../../storage/types.ts';
import type { SshKeyRecord } from '../../storage/types-users.ts';

/** One ref updated by an accepted push (git over HTTP) or by an API write. */
export interface PushEvent {
  project_id: number;
  /** Full ref name, e.g. refs/heads/main or refs/tags/v1.0. */
  ref: string;
  /** 40 zeros when the ref was created. */
  before: string;
  /** 40 zeros when the ref was deleted. */
  after: string;
  user_id: number | null;
  /** GitLab's `ci.skip` push option (only the rebase API sets it): the push's pipelines are saved `skipped`. */
  ci_skip?: boolean;
}

/** A project and its repository are gone; listeners drop what hangs off it (deploy keys, ...). */
export interface ProjectDeletedEvent {
  project_id: number;
}

/**
 * What system hooks hear (GitLab's SystemHooksService), with the records as they were when it
 * happened (a destroyed one is gone by the time a listener could read it back).
 */
export type SystemEvent =
  /** `creator`: who made the project (its `created` event's author). */
  | { name: 'project_create'; project: ProjectRecord; creator: UserRecord | null }
  | { name: 'project_destroy'; project: ProjectRecord }
  | { name: 'project_rename' | 'project_transfer'; project: ProjectRecord; oldPathWithNamespace: string }
  | { name: 'user_create' | 'user_destroy'; user: UserRecord }
  | { name: 'user_rename'; user: UserRecord; oldUsername: string }
  | { name: 'group_create' | 'group_destroy'; group: NamespaceRecord }
  | { name: 'group_rename'; group: NamespaceRecord; oldPath: string; oldFullPath: string }
  | { name: 'key_create' | 'key_destroy'; key: SshKeyRecord; user: UserRecord }
  | { name: 'user_add_to_team' | 'user_update_for_team' | 'user_remove_from_team'; project: ProjectRecord; user: UserRecord; accessLevel: number }
  | { name: 'user_add_to_group' | 'user_update_for_group' | 'user_remove_from_group'; group: NamespaceRecord; user: UserRecord; accessLevel: number; expiresAt?: string | null };

interface EventMap {
  push: [PushEvent];
  projectDeleted: [ProjectDeletedEvent];
}

/**
 * In-process domain events. Publishers emit after the change is durable; listeners
 * (pipeline creation, integrations) subscribe in createCoordinator. A listener that throws
 * is logged by the caller of `publish`, never breaks the publisher.
 */
export class CoordinatorEvents {
  private readonly emitter = new EventEmitter<EventMap>();
  private readonly recorders: Array<(event: PushEvent) => Promise<void>> = [];
  private readonly systemRecorders: Array<(event: SystemEvent) => Promise<void>> = [];
  private readonly batchRecorders: Array<(pushes: PushEvent[]) => Promise<void>> = [];

  onPush(listener: (event: PushEvent) => void | Promise<void>): () => void {
    const wrapped = (event: PushEvent): void => void Promise.resolve(listener(event)).catch((error: unknown) => this.onListenerError(error));
    this.emitter.on('push', wrapped);
    return () => this.emitter.off('push', wrapped);
  }

  /**
   * A listener the publisher waits for before it acknowledges the push to its client (a
   * durable record of work the push must cause, such as its pipeline's creation task).
   */
  onPushRecorded(listener: (event: PushEvent) => Promise<void>): () => void {
    this.recorders.push(listener);
    return () => {
      const index = this.recorders.indexOf(listener);
      if (index >= 0) this.recorders.splice(index, 1);
    };
  }

  /**
   * A recording listener that hears one push as a whole: every ref it updated, together (GitLab's
   * `repository_update` lists them all), after the per-ref recorders.
   */
  onPushesRecorded(listener: (pushes: PushEvent[]) => Promise<void>): () => void {
    this.batchRecorders.push(listener);
    return () => {
      const index = this.batchRecorders.indexOf(listener);
      if (index >= 0) this.batchRecorders.splice(index, 1);
    };
  }

  /** One ref updated on its own (an API write): a push of that one ref. */
  async publishPush(event: PushEvent): Promise<void> {
    await this.publishPushes([event]);
  }

  /**
   * The refs one push updated: runs the recording listeners for each ref, then those of the whole
   * push (awaited, before the client hears back), then tells the others.
   */
  async publishPushes(events: PushEvent[]): Promise<void> {
    for (const event of events) {
      for (const record of [...this.recorders]) await this.guarded(() => record(event));
    }
    if (events.length > 0) for (const record of [...this.batchRecorders]) await this.guarded(() => record(events));
    for (const event of events) this.emitter.emit('push', event);
  }

  private async guarded(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.onListenerError(error);
    }
  }

  onProjectDeleted(listener: (event: ProjectDeletedEvent) => void | Promise<void>): () => void {
    const wrapped = (event: ProjectDeletedEvent): void => void Promise.resolve(listener(event)).catch((error: unknown) => this.onListenerError(error));
    this.emitter.on('projectDeleted', wrapped);
    return () => this.emitter.off('projectDeleted', wrapped);
  }

  publishProjectDeleted(event: ProjectDeletedEvent): void {
    this.emitter.emit('projectDeleted', event);
  }

  /** A listener the publisher of a system event waits for (system hooks queue their deliveries). */
  onSystemEvent(listener: (event: SystemEvent) => Promise<void>): () => void {
    this.systemRecorders.push(listener);
    return () => {
      const index = this.systemRecorders.indexOf(listener);
      if (index >= 0) this.systemRecorders.splice(index, 1);
    };
  }

  /** Runs the system event's listeners after the change is stored; a failing listener is logged, never fails the change. */
  async publishSystemEvent(event: SystemEvent): Promise<void> {
    for (const record of [...this.systemRecorders]) await this.guarded(() => record(event));
  }

  constructor(private readonly onListenerError: (error: unknown) => void = () => undefined) {}
}
