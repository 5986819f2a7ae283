import type { EnvironmentView } from '../../../services/ci/environments.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

export interface DeploymentJson {
  id: number;
  iid: number;
  ref: string;
  sha: string;
  status: string;
  created_at: string;
  updated_at: string;
  user: UserBasicJson | null;
}

export interface EnvironmentJson {
  id: number;
  name: string;
  slug: string;
  external_url: string | null;
  state: string;
  tier: string;
  auto_stop_at: string | null;
  created_at: string;
  updated_at: string;
  last_deployment: DeploymentJson | null;
}

export function serializeEnvironment(view: EnvironmentView, externalUrl: string): EnvironmentJson {
  const { environment, lastDeployment } = view;
  return {
    id: environment.id,
    name: environment.name,
    slug: environment.slug,
    external_url: environment.external_url,
    state: environment.state,
    tier: environment.tier,
    auto_stop_at: environment.auto_stop_at,
    created_at: environment.created_at,
    updated_at: environment.updated_at,
    last_deployment: lastDeployment && {
      id: lastDeployment.deployment.id,
      iid: lastDeployment.deployment.iid,
      ref: lastDeployment.deployment.ref,
      sha: lastDeployment.deployment.sha,
      status: lastDeployment.deployment.status,
      created_at: lastDeployment.deployment.created_at,
      updated_at: lastDeployment.deployment.updated_at,
      user: lastDeployment.user ? serializeUserBasic(lastDeployment.user, externalUrl) : null,
    },
  };
}
