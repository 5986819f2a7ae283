/**
 * `include:component` (GitLab 16.0): `<server>/<project path>/<component>@<version>`, a file of
 * a project of this coordinator: `templates/<component>.yml`, else
 * `templates/<component>/template.yml`, at `<version>` (a commit SHA, a branch or a tag). The
 * `<server>` is the coordinator's `CI_SERVER_FQDN` (its host, with the port when it is not the
 * protocol's); its `CI_SERVER_HOST` alone is taken too, so that `$CI_SERVER_HOST/$CI_PROJECT_PATH/x@$CI_COMMIT_SHA`
 * works on a coordinator with a port of its own (`runner exec`'s). Gantry has no CI/CD catalog:
 * `~latest` and partial versions (`1`, `1.2`) that name no ref are refused as GitLab refuses
 * them for projects outside the catalog. Messages are GitLab's (`Ci::Components::FetchService`).
 */
import type { RepositoryReader, ServerIdentity } from './model.ts';

export interface ComponentAddress {
  project: string;
  name: string;
  version: string;
}

export type ComponentParse = { ok: true; address: ComponentAddress } | { ok: false; error: string };

const LATEST = '~latest';
const PARTIAL_SEMVER = /^\d+(\.\d+)?$/;

/** The prefixes an address may start with on this coordinator (none without one). */
export function componentPrefixes(server: ServerIdentity | undefined): string[] {
  if (!server) return [];
  const url = new URL(server.url);
  const fqdn = url.host;
  return fqdn === url.hostname ? [`${fqdn}/`] : [`${fqdn}/`, `${url.hostname}/`];
}

function parseComponent(address: string, prefixes: readonly string[]): ComponentParse {
  const prefix = address.includes('@') ? prefixes.find((candidate) => address.startsWith(candidate)) : undefined;
  if (prefix === undefined) return { ok: false, error: componentError(address, 'the component path is not supported') };
  const [fullPath = '', version = ''] = splitOnce(address.slice(prefix.length), '@');
  const separator = fullPath.lastIndexOf('/');
  if (fullPath.startsWith('/') || separator <= 0 || separator === fullPath.length - 1 || version === '') {
    return { ok: false, error: componentError(address, 'content not found') };
  }
  return { ok: true, address: { project: fullPath.slice(0, separator), name: fullPath.slice(separator + 1), version } };
}

/** Where a component's file may be, in the order GitLab looks. */
function componentPaths(name: string): [string, string] {
  return [`templates/${name}.yml`, `templates/${name}/template.yml`];
}

export type ComponentRead = { ok: true; project: string; version: string; path: string; text: string } | { ok: false; error: string };

/** The component's file and where it was found, or GitLab's message for why not. */
export async function readComponent(address: string, prefixes: readonly string[], reader: RepositoryReader): Promise<ComponentRead> {
  const parsed = parseComponent(address, prefixes);
  if (!parsed.ok) return parsed;
  if (!reader.readProjectFile) return { ok: false, error: 'Unable to use components outside of a project context' };
  const { project, name, version } = parsed.address;
  for (const path of version === LATEST ? [] : componentPaths(name)) {
    const answer = await reader.readProjectFile(project, version, path);
    if (answer.status === 'project-not-found') return { ok: false, error: componentProjectRefused(address) };
    if (answer.status === 'found') return { ok: true, project, version, path, text: answer.content };
  }
  return { ok: false, error: componentNotFound(address, version) };
}

/** Why a component was not found: the version forms only the catalog resolves, else its content. */
function componentNotFound(address: string, version: string): string {
  if (version === LATEST) {
    return componentError(address, 'The ~latest version reference is not supported for non-catalog resources. Use a tag, branch, or commit SHA instead.');
  }
  if (PARTIAL_SEMVER.test(version)) {
    return componentError(address, 'The partial semantic version reference is not supported for non-catalog resources. Use a tag, branch, or commit SHA instead.');
  }
  return componentError(address, 'content not found');
}

function componentProjectRefused(address: string): string {
  return componentError(address, "project does not exist or you don't have sufficient permissions");
}

function componentError(address: string, message: string): string {
  return `Component '${address}' - ${message}`;
}

function splitOnce(text: string, separator: string): [string, string] {
  const index = text.indexOf(separator);
  return index < 0 ? [text, ''] : [text.slice(0, index), text.slice(index + 1)];
}
