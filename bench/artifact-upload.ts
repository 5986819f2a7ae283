/**
 * A 1 GiB artifact upload to a listening coordinator, as gitlab-runner's artifacts-uploader
 * sends it (one multipart part `file`, chunked, JOB-TOKEN header), next to copying the same
 * file on the same disk (streamed and flushed, as the artifact store writes). The coordinator
 * runs in a child process (bench/support/artifact-coordinator.ts) and its resident memory is
 * sampled from /proc while the upload runs.
 *
 * Targets: coordinator RSS growth under 100 MB; upload speed at least 50 % of the copy's
 * (best of two alternated runs each).
 * Run: node --import tsx bench/artifact-upload.ts [size in MiB, default 1024]
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import yazl from 'yazl';

const MiB = 1024 * 1024;
const RSS_GROWTH_TARGET_MB = 100;
const SPEED_RATIO_TARGET = 0.5;
const BOUNDARY = '------------------------benchArtifactBoundary';
const CHILD = path.join(import.meta.dirname, 'support', 'artifact-coordinator.ts');

const sizeMiB = Number(process.argv[2] ?? 1024);
const ROUNDS = 2;

/** A stored (uncompressed) zip holding one member of `size` random bytes, like an archive of build output. */
async function writeZip(file: string, size: number): Promise<void> {
  const zip = new yazl.ZipFile();
  async function* content(): AsyncGenerator<Buffer> {
    for (let sent = 0; sent < size; sent += MiB) yield randomBytes(Math.min(MiB, size - sent));
  }
  zip.addReadStream(Readable.from(content()), 'build/output.bin', { compress: false, size });
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}

async function copyFlushed(from: string, to: string): Promise<number> {
  const started = performance.now();
  await pipeline(createReadStream(from, { highWaterMark: MiB }), createWriteStream(to, { flush: true }));
  const seconds = (performance.now() - started) / 1000;
  await rm(to);
  return seconds;
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

async function upload(base: string, jobId: number, token: string, file: string): Promise<{ status: number; seconds: number }> {
  async function* body(): AsyncGenerator<Buffer> {
    yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="artifacts.zip"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    for await (const chunk of createReadStream(file, { highWaterMark: MiB })) yield chunk as Buffer;
    yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  }
  const started = performance.now();
  const answer = await request(`${base}/api/v4/jobs/${jobId}/artifacts?artifact_format=zip&artifact_type=archive&expire_in=1+day`, {
    method: 'POST',
    headers: { 'job-token': token, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body: Readable.from(body(), { objectMode: false }),
  });
  await answer.body.text();
  return { status: answer.statusCode, seconds: (performance.now() - started) / 1000 };
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-artifacts-'));
const child = spawn(process.execPath, [...(process.env.BENCH_CHILD_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_CHILD_PROF] : []), '--import', 'tsx', CHILD, path.join(work, 'data')], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const source = path.join(work, 'source.zip');
  const warmup = path.join(work, 'warmup.zip');
  await writeZip(source, sizeMiB * MiB);
  await writeZip(warmup, 8 * MiB);
  const bytes = (await stat(source)).size;
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the coordinator exited (${code}) before listening`)));
  });
  // One job per upload: a job keeps its first archive (a second, different one answers 400).
  const { base, jobs } = JSON.parse(line) as { base: string; jobs: Array<{ jobId: number; token: string }> };
  const [warmJob, ...roundJobs] = jobs;
  if (!warmJob || roundJobs.length < ROUNDS) throw new Error(`the coordinator seeded ${jobs.length} jobs, ${ROUNDS + 1} are needed`);

  const warm = await upload(base, warmJob.jobId, warmJob.token, warmup);
  if (warm.status !== 201) throw new Error(`warm-up upload answered ${warm.status}`);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const rssBefore = await rssOf(child.pid!);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssOf(child.pid!).then((rss) => (rssPeak = Math.max(rssPeak, rss)), () => {});
  }, 25);
  // Alternated, best of each: the machine is shared, and a neighbour's burst should not decide the ratio.
  const copies: number[] = [];
  const uploads: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      copies.push(await copyFlushed(source, path.join(work, 'copy.zip')));
      const result = await upload(base, roundJobs[round]!.jobId, roundJobs[round]!.token, source);
      if (result.status !== 201) throw new Error(`upload answered ${result.status}`);
      uploads.push(result.seconds);
    }
  } finally {
    clearInterval(sampler);
  }
  rssPeak = Math.max(rssPeak, await rssOf(child.pid!));

  const uploadSeconds = Math.min(...uploads);
  const copySeconds = Math.min(...copies);
  const uploadMbS = bytes / MiB / uploadSeconds;
  const copyMbS = bytes / MiB / copySeconds;
  const growthMb = (rssPeak - rssBefore) / MiB;
  const ratio = uploadMbS / copyMbS;
  process.stdout.write(
    `${JSON.stringify({
      bench: 'artifact-upload',
      size_mib: round(bytes / MiB),
      upload_s: uploads.map((seconds) => round(seconds, 2)),
      upload_mib_s: round(uploadMbS),
      copy_s: copies.map((seconds) => round(seconds, 2)),
      copy_mib_s: round(copyMbS),
      speed_ratio: round(ratio, 2),
      coordinator_rss_before_mb: round(rssBefore / MiB),
      coordinator_rss_peak_mb: round(rssPeak / MiB),
      coordinator_rss_growth_mb: round(growthMb),
      targets: { rss_growth_mb: RSS_GROWTH_TARGET_MB, speed_ratio: SPEED_RATIO_TARGET },
      met: { rss_growth: growthMb < RSS_GROWTH_TARGET_MB, speed: ratio >= SPEED_RATIO_TARGET },
    })}\n`,
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
  await rm(work, { recursive: true, force: true });
}
