/**
 * Labels on every container, network and volume the docker executor creates, and the sweep
 * that removes what a dead runner process left behind (found by its owner label).
 */
import type Docker from 'dockerode';
import os from 'node:os';
import { processAlive } from '../../shared/process-alive.ts';

export const LABEL_MANAGED = 'com.gantry.runner.managed';
export const LABEL_OWNER = 'com.gantry.runner.owner';
export const LABEL_JOB = 'com.gantry.runner.job';
export const LABEL_RUNNER = 'com.gantry.runner.short_token';
export const LABEL_KIND = 'com.gantry.runner.kind';

export type ResourceKind = 'build' | 'service' | 'holder' | 'probe' | 'network' | 'build-volume' | 'cache-volume';

/** `<hostname>/<pid>`: who created a resource, so a later process can tell whether its creator is gone. */
export function ownerId(pid = process.pid, hostname = os.hostname()): string {
  return `${hostname}/${pid}`;
}

export function resourceLabels(kind: ResourceKind, jobId: number | null, shortToken: string, owner = ownerId()): Record<string, string> {
  const labels: Record<string, string> = { [LABEL_MANAGED]: 'true', [LABEL_OWNER]: owner, [LABEL_RUNNER]: shortToken, [LABEL_KIND]: kind };
  if (jobId !== null) labels[LABEL_JOB] = String(jobId);
  return labels;
}

/** Whether the owner is a process of this machine that no longer runs. */
export function ownerIsGone(owner: string | undefined, hostname = os.hostname()): boolean {
  if (!owner) return false;
  const at = owner.lastIndexOf('/');
  const pid = Number(owner.slice(at + 1));
  if (owner.slice(0, at) !== hostname || !Number.isInteger(pid) || pid <= 0) return false;
  return pid !== process.pid && !processAlive(pid);
}

/**
 * Removes containers, networks and build volumes whose creating process is gone. Cache
 * volumes stay (they are meant to outlive jobs). Returns how many resources were removed.
 */
export async function sweepOrphans(docker: Docker): Promise<number> {
  const filters = JSON.stringify({ label: [`${LABEL_MANAGED}=true`] });
  let removed = 0;
  const containers = await docker.listContainers({ all: true, filters });
  for (const info of containers) {
    if (!ownerIsGone(info.Labels?.[LABEL_OWNER])) continue;
    await docker.getContainer(info.Id).remove({ force: true, v: false }).then(() => removed++, ignoreMissing);
  }
  const networks = await docker.listNetworks({ filters });
  for (const info of networks) {
    if (!ownerIsGone(info.Labels?.[LABEL_OWNER])) continue;
    await docker.getNetwork(info.Id).remove().then(() => removed++, ignoreMissing);
  }
  const { Volumes: volumes } = await docker.listVolumes({ filters });
  for (const info of volumes ?? []) {
    const labels = info.Labels ?? {};
    if (labels[LABEL_KIND] === 'cache-volume' || !ownerIsGone(labels[LABEL_OWNER])) continue;
    await docker.getVolume(info.Name).remove().then(() => removed++, ignoreMissing);
  }
  return removed;
}

export function ignoreMissing(error: unknown): void {
  const status = (error as { statusCode?: number }).statusCode;
  if (status === 404 || status === 409) return;
  throw error;
}
