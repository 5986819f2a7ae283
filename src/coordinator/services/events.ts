import { EventEmitter } from 'node:events';

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
}

/** A project and its repository are gone; listeners drop what hangs off it (deploy keys, ...). */
export interface ProjectDeletedEvent {
  project_id: number;
}

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

  onPush(listener: (event: PushEvent) => void | Promise<void>): () => void {
    const wrapped = (event: PushEvent): void => void Promise.resolve(listener(event)).catch((error: unknown) => this.onListenerError(error));
    this.emitter.on('push', wrapped);
    return () => this.emitter.off('push', wrapped);
  }

  publishPush(event: PushEvent): void {
    this.emitter.emit('push', event);
  }

  onProjectDeleted(listener: (event: ProjectDeletedEvent) => void | Promise<void>): () => void {
    const wrapped = (event: ProjectDeletedEvent): void => void Promise.resolve(listener(event)).catch((error: unknown) => this.onListenerError(error));
    this.emitter.on('projectDeleted', wrapped);
    return () => this.emitter.off('projectDeleted', wrapped);
  }

  publishProjectDeleted(event: ProjectDeletedEvent): void {
    this.emitter.emit('projectDeleted', event);
  }

  constructor(private readonly onListenerError: (error: unknown) => void = () => undefined) {}
}
