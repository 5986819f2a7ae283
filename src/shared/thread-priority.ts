import { execFile } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import type { Logger } from './logger.ts';

export type ThreadPriorityLevel = 'background' | 'normal';

/** A claimed task due longer ago than this: the thread is falling behind and takes its normal share of CPU again. */
export const BEHIND_MS = 1_000;
/** Once claims are this close to their due time again, the thread goes back to the background. */
export const CAUGHT_UP_MS = 100;
/** Linux's CAP_SYS_NICE, the right to leave SCHED_IDLE again (else only an RLIMIT_NICE of 20 gives it). */
const CAP_SYS_NICE = 23n;

/**
 * The level a thread running queued work wants, given how late the task it just claimed was
 * (`lagMs`: now − the task's due time) and its level now. Between the two bounds it keeps its
 * level, so that a lag near one of them does not switch it back and forth.
 */
export function wantedLevel(current: ThreadPriorityLevel, lagMs: number): ThreadPriorityLevel {
  if (lagMs > BEHIND_MS) return 'normal';
  if (lagMs < CAUGHT_UP_MS) return 'background';
  return current;
}

/**
 * Whether a thread of this process that went to SCHED_IDLE may come back (Linux lets only a
 * thread with CAP_SYS_NICE or an RLIMIT_NICE of 20 leave it), from /proc's `status` and `limits`.
 */
export function mayLeaveIdle(status: string, limits: string): boolean {
  const capabilities = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  if (capabilities !== undefined && (BigInt(`0x${capabilities}`) >> CAP_SYS_NICE) & 1n) return true;
  const niceLimit = /^Max nice priority\s+(\S+)/m.exec(limits)?.[1];
  return niceLimit === 'unlimited' || Number(niceLimit) >= 20;
}

/**
 * The CPU priority of the calling thread and of the processes it started, on Linux. In the
 * background they run under SCHED_IDLE (util-linux's `chrt`; Node has no call for it): they get
 * a core only when nothing else wants one, and a request's thread or git process that wakes
 * takes the core from them at once; processes started meanwhile inherit the policy. Where the
 * thread could not come back (no CAP_SYS_NICE, no chrt) it stays at normal priority: a thread
 * stuck in the background would starve behind a busy machine.
 */
export class ThreadPriority {
  private level: ThreadPriorityLevel = 'normal';
  private wanted: ThreadPriorityLevel = 'normal';
  private changing: Promise<void> | undefined;
  private disabled = false;

  private constructor(
    private readonly threadId: number,
    private readonly logger: Logger,
    /** Processes the thread started that its level applies to as well (with their children): a spawner's helper. */
    private readonly started: () => readonly number[],
  ) {}

  /** The calling thread's; undefined where its priority is left alone (not Linux, or no way back from the background). */
  static ofCallingThread(logger: Logger, started: () => readonly number[] = () => []): ThreadPriority | undefined {
    if (process.platform !== 'linux') return undefined;
    try {
      if (!mayLeaveIdle(readFileSync('/proc/self/status', 'utf8'), readFileSync('/proc/self/limits', 'utf8'))) return undefined;
      const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
      return Number.isInteger(threadId) && threadId > 0 ? new ThreadPriority(threadId, logger, started) : undefined;
    } catch {
      return undefined;
    }
  }

  get current(): ThreadPriorityLevel {
    return this.level;
  }

  /** The thread's id in the kernel (its /proc/<pid>/task entry). */
  get id(): number {
    return this.threadId;
  }

  /** Heard at each claim: switches when the lag says so. */
  observeLag(lagMs: number): void {
    void this.set(wantedLevel(this.wanted, lagMs));
  }

  /**
   * One change at a time; the last wish wins; resolves once the level is the one wished (or
   * cannot be). A change of the thread that fails stops all later ones (logged once).
   */
  async set(level: ThreadPriorityLevel): Promise<void> {
    this.wanted = level;
    while (this.changing) await this.changing;
    if (this.disabled || this.wanted === this.level) return;
    const target = this.wanted;
    this.changing = this.change(target).finally(() => {
      this.changing = undefined;
    });
    await this.changing;
    if (this.wanted !== this.level) await this.set(this.wanted);
  }

  private async change(level: ThreadPriorityLevel): Promise<void> {
    const policy = level === 'background' ? '--idle' : '--other';
    try {
      await chrt([policy, '-p', '0', String(this.threadId)]);
    } catch (error) {
      this.disabled = true;
      this.logger.warn({ err: error, level }, "could not change this thread's CPU priority; it keeps the one it has");
      return;
    }
    this.level = level;
    // A process that ended meanwhile is no failure.
    for (const pid of withChildren(this.started())) await chrt(['--all-tasks', policy, '-p', '0', String(pid)]).catch(() => undefined);
  }
}

function chrt(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => execFile('chrt', args, (error) => (error ? reject(error) : resolve())));
}

/** The processes and their children (one level: a spawner's helper and what it forked). */
function withChildren(pids: readonly number[]): number[] {
  return pids.flatMap((pid) => {
    try {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
      return [pid, ...(children === '' ? [] : children.split(' ').map(Number))];
    } catch {
      return [pid];
    }
  });
}
