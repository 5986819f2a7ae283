/**
 * A stock gitlab-runner 18.x's job loop, replayed (there is no gitlab-runner binary on this
 * machine): the requests its published source sends (network/gitlab.go, network/trace.go) at
 * the times it sends them, around a real script process.
 *  - `POST /jobs/request` with `system_id` and 18.x's features (`cancel_gracefully` among them);
 *    `PUT /jobs/:id state=running` right after pickup.
 *  - The trace loop of `clientJobTrace.watch()`: every update interval (3 s until the
 *    coordinator's `X-GitLab-Trace-Update-Interval` says otherwise) a PATCH of the new output,
 *    if there is any; a keep-alive `PUT state=running` only once 30 s passed since the last
 *    request that succeeded (`MinTraceForceSendInterval`; a shorter interval does not shorten
 *    it unless FF_USE_DYNAMIC_TRACE_FORCE_SEND_INTERVAL, which keeps it at 30 s or more).
 *  - An answer `Job-Status: canceling` cancels the script gracefully (its process group gets
 *    SIGTERM, as the shell executor's context cancel does); `canceled`/`failed` or a 403 kills
 *    it; the final `PUT state=failed failure_reason=job_canceled` with the trace's checksum.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { INFO_18, traceChecksum as crc, USER_AGENT_18 as USER_AGENT } from '../../test/helpers/gitlab-runner-18.ts';

const DEFAULT_UPDATE_INTERVAL_MS = 3_000;
const FORCE_SEND_INTERVAL_MS = 30_000;

export interface ReplayedJob {
  jobId: number;
  /** The script's process; its exit is when the script stopped. */
  script: ChildProcess;
  /** Resolves with the wall time (Date.now()) of the script's exit. */
  exited: Promise<number>;
  /** Resolves once the final update was taken. */
  done: Promise<void>;
}

interface Answer {
  status: number;
  jobStatus: string | null;
  interval: string | null;
  range: string | null;
}

export class StockRunnerReplay {
  constructor(
    private readonly base: string,
    private readonly token: string,
    private readonly systemId = 's_0123456789ab',
  ) {}

  private async send(method: string, path: string, body: string | Buffer, headers: Record<string, string>): Promise<Answer & { text: string }> {
    const response = await fetch(`${this.base}/api/v4${path}`, { method, headers: { 'user-agent': USER_AGENT, ...headers }, body });
    const text = await response.text();
    return { status: response.status, jobStatus: response.headers.get('job-status'), interval: response.headers.get('x-gitlab-trace-update-interval'), range: response.headers.get('range'), text };
  }

  /** Requests until a job comes (bounded), then runs `command` for it the way gitlab-runner would. */
  async takeJob(command: string, timeoutMs = 30_000): Promise<ReplayedJob> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await this.send('POST', '/jobs/request', JSON.stringify({ info: INFO_18, token: this.token, system_id: this.systemId }), { 'content-type': 'application/json', accept: 'application/json' });
      if (answer.status === 201) {
        const payload = JSON.parse(answer.text) as { id: number; token: string };
        return this.run(payload.id, payload.token, command);
      }
      if (Date.now() > deadline) throw new Error(`no job for the replayed runner within ${timeoutMs} ms (last answer ${answer.status})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private run(jobId: number, jobToken: string, command: string): ReplayedJob {
    const chunks: Buffer[] = [];
    let size = 0;
    let sent = 0;
    let updateIntervalMs = DEFAULT_UPDATE_INTERVAL_MS;
    let sentTime = Date.now();
    let stopping: 'graceful' | 'kill' | null = null;
    const script = spawn('bash', ['-c', command], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const take = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    };
    script.stdout?.on('data', take);
    script.stderr?.on('data', take);
    const exited = new Promise<number>((resolve) => script.once('exit', () => resolve(Date.now())));
    const signalScript = (signal: NodeJS.Signals) => {
      try {
        if (script.pid !== undefined) process.kill(-script.pid, signal);
      } catch {
        // already gone
      }
    };
    const applyAnswer = (answer: Answer) => {
      const seconds = Number(answer.interval);
      if (answer.interval !== null && seconds > 0) updateIntervalMs = seconds * 1000;
      if (stopping === 'kill') return;
      if (answer.status === 403 || answer.jobStatus === 'canceled' || answer.jobStatus === 'failed') {
        stopping = 'kill';
        signalScript('SIGKILL');
      } else if (answer.jobStatus === 'canceling' && stopping === null) {
        stopping = 'graceful';
        signalScript('SIGTERM');
      }
    };
    const json = (body: Record<string, unknown>) => this.send('PUT', `/jobs/${jobId}`, JSON.stringify({ info: INFO_18, token: jobToken, ...body }), { 'content-type': 'application/json' });
    const patch = async () => {
      if (size === sent) return;
      const content = Buffer.concat(chunks).subarray(sent);
      const answer = await this.send('PATCH', `/jobs/${jobId}/trace?debug_trace=false`, content, {
        'content-type': 'text/plain', 'content-range': `${sent}-${sent + content.length - 1}`, 'job-token': jobToken,
      });
      applyAnswer(answer);
      if (answer.status === 202) {
        sent += content.length;
        sentTime = Date.now();
      }
    };
    const done = (async () => {
      applyAnswer(await json({ state: 'running', output: {} }));
      let running = true;
      void exited.then(() => (running = false));
      while (running) {
        await Promise.race([new Promise((resolve) => setTimeout(resolve, updateIntervalMs)), exited]);
        if (!running) break;
        await patch();
        if (Date.now() - sentTime > FORCE_SEND_INTERVAL_MS) {
              const answer = await json({ state: 'running', output: { checksum: crc(Buffer.concat(chunks).subarray(0, sent)), bytesize: sent } });
          applyAnswer(answer);
          if (answer.status === 200) sentTime = Date.now();
        }
      }
      await patch();
      const whole = Buffer.concat(chunks);
      const outcome = stopping === null ? { state: 'success' } : { state: 'failed', failure_reason: 'job_canceled' };
      for (let attempt = 0; attempt < 20; attempt++) {
        const answer = await json({ ...outcome, checksum: crc(whole), output: { checksum: crc(whole), bytesize: whole.length } });
        if (answer.status !== 202) return;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    return { jobId, script, exited, done };
  }
}
