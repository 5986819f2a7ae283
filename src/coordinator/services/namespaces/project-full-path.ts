import type { NamespaceRecord, NamespacesStore, ProjectRecord } from '../../../storage/types.ts';

/** A project's full path (`group/sub/project`), as URLs, references and `CI_PROJECT_PATH` name it. */
export async function projectFullPath(namespaces: Pick<NamespacesStore, 'findById'>, project: Pick<ProjectRecord, 'namespace_id' | 'path'>): Promise<string> {
  return projectFullPathIn(await namespaces.findById(project.namespace_id), project);
}

/** The same from a namespace already read (for its name or kind too); without one, the project's path alone. */
export function projectFullPathIn(namespace: Pick<NamespaceRecord, 'full_path'> | undefined, project: Pick<ProjectRecord, 'path'>): string {
  return namespace ? `${namespace.full_path}/${project.path}` : project.path;
}
