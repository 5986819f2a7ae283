/**
 * Before a docker pipeline: the engine answers, and every image the chosen jobs name (theirs,
 * their services', the default image) is there — present, or pulled now as the runner would
 * (`if-not-present`; not an image whose only `pull_policy` is `never`). Each failure is one line naming what is wrong, instead of jobs failing
 * one by one with the reason deep in their logs.
 */
import Docker from 'dockerode';
import type { JobDefinition } from '../ci/model.ts';
import { expandValue, type BuildVariable } from '../runner/job/variables.ts';
import { referenceProblem } from '../executors/docker/pull.ts';
import { ExecError } from './errors.ts';

const PING_TIMEOUT_MS = 5_000;

/**
 * `variables`: those of the run known before it (`--variable`, `--env-file`, the local project's
 * that apply to every job), after the job's own from the CI file; `unknown`: names whose value
 * is only known once a job runs (a protected or environment-scoped local variable).
 */
export async function checkDocker(
  jobs: readonly JobDefinition[],
  defaultImage: string,
  variables: readonly { key: string; value: string }[] = [],
  unknown: ReadonlySet<string> = new Set(),
): Promise<void> {
  const docker = new Docker();
  await answers(docker);
  const wanted = new Map<string, { job: string; pullable: boolean }>();
  for (const job of jobs) {
    const known = [...job.variables, ...variables];
    const name = (text: string) => expandedName(text, known, unknown);
    const named = job.image ? name(job.image.name) : '';
    // An image whose name expands to nothing is the runner's default one, as gitlab-runner takes it.
    const images = [{ name: named === '' ? name(defaultImage) : named, pullPolicy: named === '' ? undefined : job.image?.pullPolicy }, ...job.services.map((service) => ({ ...service, name: name(service.name) }))];
    for (const image of images) {
      // A name the variables known here do not settle is only known once the job runs; none is no service.
      if (image.name === null || image.name.trim() === '') continue;
      // A malformed name is no image to look for: its job fails pulling it, as on a server.
      if (referenceProblem(image.name)) continue;
      const pullable = !(image.pullPolicy?.length && image.pullPolicy.every((policy) => policy === 'never'));
      const seen = wanted.get(image.name);
      if (!seen) wanted.set(image.name, { job: job.name, pullable });
      else if (!pullable && seen.pullable) wanted.set(image.name, { job: job.name, pullable });
    }
  }
  for (const [image, { job, pullable }] of wanted) await ensureImage(docker, image, job, pullable);
}

/**
 * An image or service name expanded as the runner expands it (each variable's value expanded
 * once, raw ones as they are, then the name), or null when it names a variable not known before
 * the job runs (a predefined one, the runner's own, an `unknown` one), directly or through a value.
 */
function expandedName(text: string, list: readonly BuildVariable[], unknown: ReadonlySet<string>): string | null {
  if (!text.includes('$')) return text;
  const last = new Map(list.map((variable) => [variable.key, variable]));
  const settled = (value: string): boolean => referencedNames(value).every((key) => last.has(key) && !unknown.has(key));
  const names = referencedNames(text);
  if (!settled(text) || names.some((key) => !last.get(key)!.raw && !settled(last.get(key)!.value))) return null;
  const expanded = list.map((variable) => (variable.raw ? variable : { ...variable, value: expandValue(variable.value, list) }));
  return expandValue(text, expanded);
}

function referencedNames(text: string): string[] {
  return [...text.matchAll(/\$(?:\{(\w+)\}|(\w+))/g)].map((match) => match[1] ?? match[2]!);
}

async function answers(docker: Docker): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${PING_TIMEOUT_MS / 1000} s`)), PING_TIMEOUT_MS);
  });
  try {
    await Promise.race([docker.ping(), timeout]);
  } catch (error) {
    const where = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
    throw new ExecError(`--executor docker: no Docker engine answers at ${where} (${reason(error)})`);
  } finally {
    clearTimeout(timer);
  }
}

async function ensureImage(docker: Docker, image: string, job: string, pullable: boolean): Promise<void> {
  const present = await docker.getImage(image).inspect().then(() => true, (error: { statusCode?: number }) => {
    if (error.statusCode === 404) return false;
    throw new ExecError(`--executor docker: cannot inspect image ${image}: ${reason(error)}`);
  });
  if (present) return;
  if (!pullable) throw new ExecError(`image ${image} (job "${job}") is not there: it is not on the Docker engine and its pull_policy is never`);
  try {
    const stream = await docker.pull(image);
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(stream, (error: Error | null, events: Array<{ error?: string }>) => {
        const failed = events?.find((event) => event.error);
        if (error) reject(error);
        else if (failed) reject(new Error(failed.error));
        else resolve();
      });
    });
  } catch (error) {
    throw new ExecError(`image ${image} (job "${job}") is not there: it is not on the Docker engine and pulling it failed (${reason(error)})`);
  }
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.replace(/^\(HTTP code \d+\) [a-z ]+ - /, '');
}
