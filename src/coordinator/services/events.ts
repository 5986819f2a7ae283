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
  private readonly recorders: Array<(event: PushEvent) => Promise<void>> = [];

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

  /** Runs the recording listeners (awaited, before the client hears back), then tells the others. */
  async publishPush(event: PushEvent): Promise<void> {
    for (const record of [...this.recorders]) {
      try {
        await record(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
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
