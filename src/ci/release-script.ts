/**
 * The `release` step's command, as GitLab's `Releaser` writes it: `release-cli create` with
 * `--name`, `--description`, `--tag-name`, `--tag-message`, `--ref`, `--released-at` (those
 * given, in that order, each value in double quotes as written: the job's shell expands
 * `$CI_COMMIT_TAG` and friends), a `--milestone` per milestone, and an `--assets-link` per link
 * (its JSON, quoted as a JSON string).
 */
import type { ReleaseDefinition } from './model.ts';

export function releaseScript(release: ReleaseDefinition): string[] {
  const flags: Array<[string, string | undefined]> = [
    ['name', release.name],
    ['description', release.description],
    ['tag-name', release.tagName],
    ['tag-message', release.tagMessage],
    ['ref', release.ref],
    ['released-at', release.releasedAt],
  ];
  let command = 'release-cli create';
  for (const [flag, value] of flags) if (value !== undefined) command += ` --${flag} "${value}"`;
  for (const milestone of release.milestones) command += ` --milestone "${milestone}"`;
  for (const link of release.links) command += ` --assets-link ${JSON.stringify(JSON.stringify(link))}`;
  return [command];
}
