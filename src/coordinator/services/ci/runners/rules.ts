import { validationFailed } from '../../../../shared/errors.ts';
import type { RunnerAccessLevel, RunnerRecord } from '../../../../storage/types-runners.ts';

/** GitLab's `Ci::Runner` minimum for `maximum_timeout` (seconds). */
export const MINIMUM_RUNNER_TIMEOUT = 600;

/** A runner counts as online when it was in touch within this window (GitLab: 2 hours). */
export const ONLINE_WINDOW_MS = 2 * 60 * 60 * 1000;

/** The settings a registration or `PUT /runners/:id` may change. */
export interface RunnerSettingsInput {
  description?: string;
  tagList?: readonly string[];
  runUntagged?: boolean;
  locked?: boolean;
  active?: boolean;
  /** GitLab 14.8's spelling of `active: false`; when both are given, `paused` decides. */
  paused?: boolean;
  accessLevel?: RunnerAccessLevel;
  maximumTimeout?: number;
  maintenanceNote?: string;
}

/** GitLab's limit of a runner's `maintenance_note`. */
export const MAINTENANCE_NOTE_MAX = 1024;

/** Trimmed, blank ones dropped, without duplicates, sorted (as the store keeps them). */
export function normalizedTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim()).filter((tag) => tag !== ''))].sort();
}

/** The record fields `input` sets (tags normalised); absent keys stay absent. */
export function runnerChangesOf(input: RunnerSettingsInput): Partial<RunnerRecord> {
  const changes: Partial<RunnerRecord> = {};
  if (input.description !== undefined) changes.description = input.description;
  if (input.tagList !== undefined) changes.tag_list = normalizedTags(input.tagList);
  if (input.runUntagged !== undefined) changes.run_untagged = input.runUntagged;
  if (input.locked !== undefined) changes.locked = input.locked;
  if (input.active !== undefined) changes.active = input.active;
  if (input.paused !== undefined) changes.active = !input.paused;
  if (input.maintenanceNote !== undefined) changes.maintenance_note = input.maintenanceNote;
  if (input.accessLevel !== undefined) changes.access_level = input.accessLevel;
  if (input.maximumTimeout !== undefined) changes.maximum_timeout = input.maximumTimeout;
  return changes;
}

/** GitLab's model validations of a runner, on the values it would end up with (400 with field messages). */
export function checkRunner(runner: Pick<RunnerRecord, 'tag_list' | 'run_untagged' | 'maximum_timeout'> & Partial<Pick<RunnerRecord, 'maintenance_note'>>): void {
  const problems: Record<string, string[]> = {};
  if ((runner.maintenance_note ?? '').length > MAINTENANCE_NOTE_MAX) problems.maintenance_note = [`is too long (maximum is ${MAINTENANCE_NOTE_MAX} characters)`];
  if (!runner.run_untagged && runner.tag_list.length === 0) problems.tags_list = ['can not be empty when runner is not allowed to pick untagged jobs'];
  if (runner.maximum_timeout !== null && runner.maximum_timeout < MINIMUM_RUNNER_TIMEOUT) problems.maximum_timeout = ['needs to be at least 10 minutes'];
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
}

export type RunnerStatus = 'online' | 'offline' | 'paused' | 'not_connected';

/** GitLab 13's `Ci::Runner#status`: never contacted, paused, or online/offline by the last contact. */
export function runnerStatus(runner: Pick<RunnerRecord, 'active' | 'contacted_at'>, now: number): RunnerStatus {
  if (runner.contacted_at === null) return 'not_connected';
  if (!runner.active) return 'paused';
  return isOnline(runner, now) ? 'online' : 'offline';
}

export function isOnline(runner: Pick<RunnerRecord, 'contacted_at'>, now: number): boolean {
  return runner.contacted_at !== null && Date.parse(runner.contacted_at) > now - ONLINE_WINDOW_MS;
}
