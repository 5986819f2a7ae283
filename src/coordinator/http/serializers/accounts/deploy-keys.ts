import type { DeployKeyRecord, ProjectDeployKeyRecord } from '../../../../storage/types-repository.ts';

export interface DeployKeyJson {
  id: number;
  title: string;
  key: string;
  created_at: string;
}

export interface ProjectDeployKeyJson extends DeployKeyJson {
  can_push: boolean;
}

export function serializeDeployKey(key: DeployKeyRecord): DeployKeyJson {
  return { id: key.id, title: key.title, key: key.key, created_at: key.created_at };
}

export function serializeProjectDeployKey(key: ProjectDeployKeyRecord): ProjectDeployKeyJson {
  return { ...serializeDeployKey(key), can_push: key.can_push };
}
