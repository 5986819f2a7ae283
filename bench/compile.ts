/**
 * Compile time of a generated CI file of 1,000 jobs using extends, needs and rules.
 * Prints one JSON line of figures, then the pipeline-processing figures (per job event as
 * pipelines grow from 10 to 1,000 jobs) from bench/pipeline-processing.ts.
 * Run: node --import tsx bench/compile.ts
 */
import { performance } from 'node:perf_hooks';
import { compilePipeline, type CompileContext } from '../src/ci/index.ts';

const JOB_COUNT = 1000;
const STAGES = ['build', 'test', 'package', 'deploy'];
const WARMUP_RUNS = 3;
const MEASURED_RUNS = 15;

function generateCiFile(): string {
  const lines: string[] = [
    `stages: [${STAGES.join(', ')}]`,
    'variables:',
    '  GLOBAL: "1"',
    'default:',
    '  image: node:20',
    '  retry: 1',
    '.base:',
    '  before_script: [npm ci]',
    '  tags: [docker]',
    '  variables:',
    '    BASE: "yes"',
    '  rules:',
    '    - if: $CI_COMMIT_TAG',
    '      when: never',
    '    - if: \'$CI_COMMIT_BRANCH == "main"\'',
    '    - changes: ["src/**/*.ts"]',
    '.cached:',
    '  extends: .base',
    '  cache:',
    '    key: $CI_COMMIT_REF_SLUG',
    '    paths: [node_modules/]',
  ];
  const perStage = JOB_COUNT / STAGES.length;
  for (let index = 0; index < JOB_COUNT; index++) {
    const stageIndex = Math.floor(index / perStage);
    const stage = STAGES[stageIndex] ?? 'test';
    lines.push(`job-${index}:`, `  extends: ${index % 2 === 0 ? '.base' : '[.cached, .base]'}`, `  stage: ${stage}`);
    lines.push(`  script: ["echo ${index}", "make part-${index}"]`);
    if (stageIndex > 0) {
      const previous = (stageIndex - 1) * perStage + (index % perStage);
      lines.push(`  needs: [job-${previous}]`);
    }
    if (index % 10 === 0) lines.push('  artifacts:', `    paths: [out/${index}/]`, '    expire_in: 1 week');
  }
  return `${lines.join('\n')}\n`;
}

const context: CompileContext = {
  project: { id: 1, path: 'bench/app', defaultBranch: 'main' },
  ref: 'main',
  refType: 'branch',
  sha: 'a'.repeat(40),
  source: 'push',
  changedPaths: ['src/index.ts'],
  files: { readFile: async () => null },
};

const text = generateCiFile();
let jobs = 0;
for (let run = 0; run < WARMUP_RUNS; run++) await compilePipeline(text, context);
const timings: number[] = [];
for (let run = 0; run < MEASURED_RUNS; run++) {
  const started = performance.now();
  const result = await compilePipeline(text, context);
  timings.push(performance.now() - started);
  if (result.status !== 'created') throw new Error(`unexpected status ${result.status}: ${JSON.stringify(result.errors.slice(0, 3))}`);
  jobs = result.jobs.length;
}
timings.sort((a, b) => a - b);
const round = (value: number): number => Math.round(value * 10) / 10;
const percentile = (p: number): number => timings[Math.min(timings.length - 1, Math.floor((p / 100) * timings.length))] ?? 0;
console.log(
  JSON.stringify({
    bench: 'compile',
    jobs,
    fileBytes: Buffer.byteLength(text),
    runs: MEASURED_RUNS,
    minMs: round(timings[0] ?? 0),
    medianMs: round(percentile(50)),
    p95Ms: round(percentile(95)),
    maxMs: round(timings.at(-1) ?? 0),
    targetMs: 300,
    node: process.version,
  }),
);

// The issue asks bench/compile for both figures; the processing bench stays runnable on its own.
await import('./pipeline-processing.ts');
