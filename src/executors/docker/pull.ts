/** Getting an image per pull_policy (reference §8.5), and the allowed_images / allowed_services lists. */
import type Docker from 'dockerode';
import picomatch from 'picomatch';
import { ExecutorError } from '../types.ts';
import type { PullPolicy } from './settings.ts';

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
 * Makes `image` available following the policies in order; the first that succeeds wins.
 * Fails with an ExecutorError of kind `image` naming the image and the policies.
 */
export async function ensureImage(
  docker: Docker,
  image: string,
  policies: readonly PullPolicy[],
  credentials: readonly RegistryCredential[],
  log: (line: string, level?: 'info' | 'warning') => void,
): Promise<Docker.ImageInspectInfo> {
  const list = policies.length > 0 ? policies : (['always'] as const);
  let lastError = 'no pull policy';
  for (const policy of list) {
    try {
      if (policy !== 'always') {
        const local = await present(docker, image);
        if (local) {
          log(`Using locally found image version due to "${policy}" pull policy`);
          return announce(local, image, log);
        }
        if (policy === 'never') throw new Error(`the image is not present on this host and the pull policy is "never"`);
      }
      await pull(docker, image, credentials, log);
      const pulled = await present(docker, image);
      if (!pulled) throw new Error('the image is still missing after the pull');
      return announce(pulled, image, log);
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
      if (list.length > 1) log(`Failed to pull image with policy "${policy}": ${lastError}`, 'warning');
    }
  }
  throw new ExecutorError(`failed to pull image "${image}" with specified policies [${list.join(' ')}]: ${lastError}`, 'image');
}

function announce(info: Docker.ImageInspectInfo, image: string, log: (line: string) => void): Docker.ImageInspectInfo {
  const digest = info.RepoDigests?.[0]?.split('@')[1];
  log(`Using docker image ${info.Id} for ${image}${digest ? ` with digest ${digest}` : ''} ...`);
  return info;
}
