import type { NamespacesStore, ProjectRecord } from '../../../storage/types.ts';

/** A project's full path (`group/sub/project`), as URLs, references and `CI_PROJECT_PATH` name it. */
export async function projectFullPath(namespaces: Pick<NamespacesStore, 'findById'>, project: Pick<ProjectRecord, 'namespace_id' | 'path'>): Promise<string> {
  const namespace = await namespaces.findById(project.namespace_id);
  return namespace ? `${namespace.full_path}/${project.path}` : project.path;
}
