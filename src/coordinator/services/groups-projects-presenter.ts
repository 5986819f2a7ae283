import type { NamespaceRecord, ProjectRecord } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import type { ProjectsPresenter } from './groups.ts';

/**
 * INTERIM: the basic Project fields, until the projects area's presentProjects
 * (services/project-presenter.ts) is there to render full Project JSON.
 */
export function groupProjectsPresenter(context: CoordinatorContext): ProjectsPresenter {
  return async (projects) => {
    const namespaces = new Map(
      (await context.stores.namespaces.findByIds(projects.map((project) => project.namespace_id))).map((namespace) => [namespace.id, namespace]),
    );
    return projects.flatMap((project) => {
      const namespace = namespaces.get(project.namespace_id);
      return namespace ? [basicProject(project, namespace, context.config.externalUrl)] : [];
    });
  };
}

function basicProject(project: ProjectRecord, namespace: NamespaceRecord, externalUrl: string): Record<string, unknown> {
  const pathWithNamespace = `${namespace.full_path}/${project.path}`;
  const host = new URL(externalUrl).host;
  return {
    id: project.id,
    description: project.description,
    default_branch: project.default_branch,
    tag_list: project.tag_list,
    ssh_url_to_repo: `git@${host.replace(/:\d+$/, '')}:${pathWithNamespace}.git`,
    http_url_to_repo: `${externalUrl}/${pathWithNamespace}.git`,
    web_url: `${externalUrl}/${pathWithNamespace}`,
    name: project.name,
    name_with_namespace: `${namespace.full_name} / ${project.name}`,
    path: project.path,
    path_with_namespace: pathWithNamespace,
    visibility: project.visibility,
    avatar_url: project.avatar_url,
    created_at: project.created_at,
    last_activity_at: project.last_activity_at,
    archived: project.archived,
  };
}
