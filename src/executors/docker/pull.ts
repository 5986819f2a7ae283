/** Getting an image per pull_policy (reference §8.5), and the allowed_images / allowed_services lists. */
import type Docker from 'dockerode';
import picomatch from 'picomatch';
import { ExecutorError } from '../types.ts';
import type { DockerSettings, PullPolicy } from './settings.ts';

export interface RegistryCredential {
  url: string;
  username: string;
  password: string;
}

/** The registry host an image reference names (`docker.io` when it names none). */
export function registryOf(image: string): string {
  const first = image.split('/')[0];
  if (image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')) return first;
  return 'docker.io';
}

/** Whether `image` matches one of the globs (an empty list allows everything). */
export function isAllowed(image: string, globs: readonly string[]): boolean {
  if (globs.length === 0) return true;
  return globs.some((glob) => picomatch.isMatch(image, glob) || picomatch.isMatch(withDefaultTag(image), glob));
}

// distribution/reference's grammar, which the Docker client checks a name against before any request.
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::${TAG})?(?:@${DIGEST})?$`);

/**
 * What is wrong with an image reference, in the Docker client's words (gitlab-runner fails the
 * pull with them), or null when it is well formed. The engine is never asked about a malformed
 * one: it answers such a path with a redirect, not an error.
 */
export function referenceProblem(image: string): string | null {
  if (/^[a-f0-9]{64}$/.test(image)) return `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`;
  // splitDockerDomain, then the repository name up to the first colon, as ParseNormalizedNamed takes it.
  const slash = image.indexOf('/');
  const first = image.slice(0, slash);
  const defaultDomain = slash === -1 || (!/[.:]/.test(first) && first !== 'localhost' && first === first.toLowerCase());
  const domain = defaultDomain ? 'docker.io' : first === 'index.docker.io' ? 'docker.io' : first;
  const remainder = defaultDomain ? image : image.slice(slash + 1);
  const repository = domain === 'docker.io' && !remainder.includes('/') ? `library/${remainder}` : remainder;
  const normalized = repository.split(':')[0]!;
  if (normalized !== normalized.toLowerCase()) return `invalid reference format: repository name (${normalized}) must be lowercase`;
  const match = REFERENCE.exec(image);
  if (!match) return 'invalid reference format';
  if (match[1]!.length > 255) return 'repository name must not be more than 255 characters';
  return null;
}

function withDefaultTag(image: string): string {
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  return lastSegment.includes(':') || lastSegment.includes('@') ? image : `${image}:latest`;
}

async function present(docker: Docker, image: string): Promise<Docker.ImageInspectInfo | null> {
  try {
    return await docker.getImage(image).inspect();
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw error;
  }
}

async function pull(docker: Docker, image: string, credentials: readonly RegistryCredential[], log: (line: string) => void): Promise<void> {
  log(`Pulling docker image ${image} ...`);
  const registry = registryOf(image);
  const credential = credentials.find((entry) => entry.url.replace(/^https?:\/\//, '').replace(/\/.*$/, '') === registry);
  const authconfig = credential ? { username: credential.username, password: credential.password, serveraddress: registry } : undefined;
  const stream = await docker.pull(withDefaultTag(image), authconfig ? { authconfig } : {});
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(stream, (error: Error | null, events: { error?: string; errorDetail?: { message?: string } }[]) => {
      const failed = events?.find((event) => event.error);
      if (error) reject(error);
      else if (failed) reject(new Error(failed.errorDetail?.message ?? failed.error));
      else resolve();
    });
  });
}

/**
 * gitlab-runner's policies for one image: the job's own when it names some, else the runner's
 * (`always` when it names none), kept to the allowed ones (`allowed_pull_policies`, by default
 * the runner's own) in the job's order. None left fails the job in gitlab-runner's words.
 */
export function effectivePullPolicies(image: string, jobPolicies: readonly string[] | null | undefined, settings: Pick<DockerSettings, 'pullPolicy' | 'allowedPullPolicies'>): PullPolicy[] {
  const configured: readonly PullPolicy[] = settings.pullPolicy?.length ? settings.pullPolicy : ['always'];
  const requested: readonly string[] = jobPolicies?.length ? jobPolicies : configured;
  const allowed: readonly string[] = settings.allowedPullPolicies?.length ? settings.allowedPullPolicies : configured;
  const effective = requested.filter((policy): policy is PullPolicy => allowed.includes(policy));
  if (effective.length > 0) return effective;
  const source = jobPolicies?.length ? 'GitLab pipeline config' : settings.pullPolicy?.length ? 'Runner config' : 'Runner config (default)';
  throw new ExecutorError(
    `invalid pull policy for image "${image}": pull_policy ([${requested.join(' ')}]) defined in ${source} is not one of the allowed_pull_policies ([${allowed.join(' ')}])`,
    'config',
  );
}

/**
 * Makes `image` available following the policies in order; the first that succeeds wins.
 * Fails with an ExecutorError of kind `image` naming the image and the policies.
 */
export async function ensureImage(
  docker: Docker,
  image: string,
  policies: readonly PullPolicy[],
  credentials: readonly RegistryCredential[],
  log: (line: string, level?: 'info' | 'warning') => void,
  options: Pick<DockerSettings, 'alwaysFallsBackToLocal'> = {},
): Promise<Docker.ImageInspectInfo> {
  const list = policies.length > 0 ? policies : (['always'] as const);
  let lastError = 'no pull policy';
  for (const [index, policy] of list.entries()) {
    if (index > 0) log(`Attempt #${index + 1}: Trying "${policy}" pull policy`);
    try {
      return await imageByPolicy(docker, image, policy, credentials, log, options);
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
      log(`Failed to pull image with policy "${policy}": ${lastError}`, 'warning');
    }
  }
  throw new ExecutorError(`failed to pull image "${image}" with specified policies [${list.join(' ')}]: ${lastError}`, 'image');
}

async function imageByPolicy(
  docker: Docker,
  image: string,
  policy: PullPolicy,
  credentials: readonly RegistryCredential[],
  log: (line: string, level?: 'info' | 'warning') => void,
  options: Pick<DockerSettings, 'alwaysFallsBackToLocal'>,
): Promise<Docker.ImageInspectInfo> {
  const problem = referenceProblem(image);
  if (problem) throw new Error(problem);
  if (policy !== 'always') {
    const local = await present(docker, image);
    if (local) {
      log(`Using locally found image version due to "${policy}" pull policy`);
      return announce(local, image, log);
    }
    if (policy === 'never') throw new Error(`the image is not present on this host and the pull policy is "never"`);
  }
  try {
    await pull(docker, image, credentials, log);
  } catch (error) {
    const local = options.alwaysFallsBackToLocal ? await present(docker, image) : null;
    if (!local) throw error;
    log(`Failed to pull image with policy "${policy}": ${error instanceof Error ? error.message : String(error)}`, 'warning');
    log(`Using locally found image version: the "${policy}" pull failed`);
    return announce(local, image, log);
  }
  const pulled = await present(docker, image);
  if (!pulled) throw new Error('the image is still missing after the pull');
  return announce(pulled, image, log);
}

function announce(info: Docker.ImageInspectInfo, image: string, log: (line: string) => void): Docker.ImageInspectInfo {
  const digest = info.RepoDigests?.[0]?.split('@')[1];
  log(`Using docker image ${info.Id} for ${image}${digest ? ` with digest ${digest}` : ''} ...`);
  return info;
}
