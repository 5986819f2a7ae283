/** The coordinator as its jobs, rules and includes see it (`CI_SERVER_*`): its external URL and GitLab version. */
import type { ServerIdentity } from '../../../ci/model.ts';
import { GANTRY_VERSION, GITLAB_COMPATIBLE_VERSION } from '../../../shared/version.ts';

export function serverIdentity(externalUrl: string): ServerIdentity {
  return { url: externalUrl, version: `${GITLAB_COMPATIBLE_VERSION}-gantry`, revision: GANTRY_VERSION };
}
