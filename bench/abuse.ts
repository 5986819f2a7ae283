/**
 * Resource abuse against one listening coordinator, in one run, printed as one JSON line:
 *  1. bodies: 8 anonymous clients at once each send a 200 MB JSON body to `POST /projects`
 *     (with and without Content-Length; then the same signed in): peak RSS growth next to the
 *     idle RSS of the same run (target: under 50 MB).
 *  2. commit: 10,000 actions in one `POST /projects/:id/repository/commits` (target: under
 *     5 s), next to a one-action commit, `git add` + `git commit` and `git fast-import` of the
 *     same files.
 *  3. clones: `GET /projects/:id` p99 while 50 clones of a 20,000-file repository run (target:
 *     under 100 ms, and every clone completes), next to the same GET with no clone running and
 *     one clone on its own.
 * They run in that order (the clones, heaviest, last). `targets_met` sums them up.
 * Run: npx tsx bench/abuse.ts [--only bodies,commit,clones] [--actions N] [--clones N] [--files N]
 */
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { abuseBodies, type AbuseBodiesFigures, RSS_GROWTH_TARGET_MB } from './support/abuse-bodies.ts';
import { abuseClones, type AbuseClonesFigures, GET_P99_TARGET_MS } from './support/abuse-clones.ts';
import { abuseCommit, type AbuseCommitFigures, COMMIT_TARGET_MS } from './support/abuse-commit.ts';
import { startBenchCoordinator } from './support/coordinator.ts';

const PARTS = ['bodies', 'commit', 'clones'] as const;
type Part = (typeof PARTS)[number];

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: PARTS.join(',') },
    actions: { type: 'string', default: '10000' },
    clones: { type: 'string', default: '50' },
    files: { type: 'string', default: '20000' },
  },
});
const only = values.only.split(',').map((part) => part.trim());
const unknown = only.filter((part) => !(PARTS as readonly string[]).includes(part));
if (unknown.length > 0) throw new Error(`--only: unknown part(s) ${unknown.join(', ')}; known: ${PARTS.join(', ')}`);
const wanted = (part: Part): boolean => only.includes(part);
const count = (name: string, text: string): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got ${text}`);
  return value;
};
const actions = count('actions', values.actions);
const clones = count('clones', values.clones);
const files = count('files', values.files);

const started = performance.now();
const loadAtStart = loadavg()[0]!;
const coordinator = await startBenchCoordinator();
let bodies: AbuseBodiesFigures | undefined;
let commit: AbuseCommitFigures | undefined;
let cloning: AbuseClonesFigures | undefined;
try {
  if (wanted('bodies')) bodies = await abuseBodies(coordinator);
  if (wanted('commit')) commit = await abuseCommit(coordinator, actions);
  if (wanted('clones')) cloning = await abuseClones(coordinator, clones, files);
} finally {
  await coordinator.close();
}

const targetsMet = {
  ...(commit ? { commit_under_5_s: commit.api_commit_ms < COMMIT_TARGET_MS } : {}),
  ...(cloning
    ? {
        get_p99_during_clones_under_100_ms: cloning.get_during_clones_p99_ms < GET_P99_TARGET_MS,
        every_clone_completed: cloning.clones_completed === cloning.clones,
      }
    : {}),
  ...(bodies
    ? {
        anonymous_rss_growth_under_50_mb:
          bodies.anonymous_with_length.rss_growth_mb < RSS_GROWTH_TARGET_MB && bodies.anonymous_chunked.rss_growth_mb < RSS_GROWTH_TARGET_MB,
      }
    : {}),
};

console.log(
  JSON.stringify({
    cpus: availableParallelism(),
    load_average_at_start: Math.round(loadAtStart * 100) / 100,
    total_s: Math.round((performance.now() - started) / 100) / 10,
    targets: { commit_ms: COMMIT_TARGET_MS, get_p99_during_clones_ms: GET_P99_TARGET_MS, rss_growth_mb: RSS_GROWTH_TARGET_MB },
    targets_met: targetsMet,
    ...(commit ? { commit } : {}),
    ...(cloning ? { clones: cloning } : {}),
    ...(bodies ? { bodies } : {}),
  }),
);
