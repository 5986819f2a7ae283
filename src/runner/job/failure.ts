/** A job that ends failed, with the reason the coordinator is told. */
import type { FailureReason } from './session.ts';

export class JobFailure extends Error {
  constructor(
    message: string,
    readonly reason: FailureReason,
    readonly exitCode?: number,
  ) {
    super(message);
    this.name = 'JobFailure';
  }
}
