/**
 * Turns of the event loop for work made of synchronous calls in a row (file metadata, small
 * reads and writes of a tree or an archive: each a few microseconds, where a trip through the
 * thread pool costs several times that). Such work never holds the loop much longer than
 * HOLD_MS, however large the tree: in `runner exec` the coordinator's requests share it.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

const HOLD_MS = 10;

export class LoopTurns {
  private since = performance.now();

  /** `holdMs`: how long the loop may be held between two turns (tests give 0: a turn at every pause). */
  constructor(private readonly holdMs = HOLD_MS) {}

  /**
   * Nothing to wait for while the loop has been held less than `holdMs`; then a promise that
   * resolves after the loop has had a turn. `await turns.pause()` in a loop of such calls.
   */
  pause(): Promise<void> | undefined {
    if (performance.now() - this.since < this.holdMs) return undefined;
    return nextTurn().then(() => {
      this.since = performance.now();
    });
  }
}
