import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';

/** Whether the request whose work is running has answered, and what waits for that. */
interface RequestScope {
  answered: boolean;
  waiting: Array<() => void>;
}

/**
 * The request each piece of work runs for (app.ts enters it as a request arrives), so that
 * work a request sets off in the background can wait until that request has answered without
 * the services that set it off knowing about HTTP. The scope holds a flag and a list, not the
 * response: work that outlives its request (a loop it started) keeps nothing of it alive.
 */
const scope = new AsyncLocalStorage<RequestScope>();

/** Runs `next` (and everything it starts) as the work of the request answered by `response`. */
export function runInRequestScope(response: ServerResponse, next: () => void): void {
  const state: RequestScope = { answered: false, waiting: [] };
  const answered = (): void => {
    if (state.answered) return;
    state.answered = true;
    for (const work of state.waiting.splice(0)) work();
  };
  // 'finish': the last byte was handed to the socket; 'close' also when the client went away first.
  response.once('finish', answered);
  response.once('close', answered);
  scope.run(state, next);
}

/**
 * Calls `work` once the request whose work is running now has answered, at once outside a
 * request or after it, and at the latest after `maxWaitMs` (a request streaming a long answer
 * holds nothing back for longer).
 */
export function afterCurrentRequest(work: () => void, maxWaitMs: number): void {
  const state = scope.getStore();
  if (state === undefined || state.answered) {
    work();
    return;
  }
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    work();
  };
  const timer = setTimeout(once, maxWaitMs);
  timer.unref();
  state.waiting.push(once);
}
