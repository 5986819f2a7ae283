import type { DatabaseNotifications } from '../types-notifications.ts';
import type { JobQueueSignal } from '../types-queue-signal.ts';

export const JOB_QUEUE_CHANNEL = 'gantry_job_queue';

/**
 * The job queue's signal as one channel of the database's notifications (notifications.ts),
 * over the same listening connection as the others: the tick travels as the payload, and a
 * gap in listening reaches the listeners as `reconnected`.
 */
export function jobQueueSignal(notifications: DatabaseNotifications): JobQueueSignal {
  const signal = notifications.signal(JOB_QUEUE_CHANNEL);
  return {
    publish: (tick) => signal.announce(String(tick)),
    subscribe: (listener) =>
      signal.subscribe((event, payload = '') => {
        if (event === 'gap') return listener({ reconnected: true });
        const tick = Number(payload);
        // Another program may NOTIFY this channel: anything but a tick is not ours.
        if (/^\d+$/.test(payload) && Number.isSafeInteger(tick)) listener({ tick });
      }),
  };
}
