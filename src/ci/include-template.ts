/**
 * `include:template`: the GitLab templates Gantry ships. Only the `Workflows/` ones, which
 * hold nothing but `workflow:rules` (as GitLab's lib/gitlab/ci/templates/Workflows/ have
 * them); any other template name stays refused, as Gantry does not carry GitLab's catalogue.
 */

const SHIPPED_TEMPLATES: ReadonlyMap<string, string> = new Map([
  [
    'Workflows/Branch-Pipelines.gitlab-ci.yml',
    ['workflow:', '  rules:', '    - if: $CI_COMMIT_TAG', '    - if: $CI_COMMIT_BRANCH', ''].join('\n'),
  ],
  [
    'Workflows/MergeRequest-Pipelines.gitlab-ci.yml',
    [
      'workflow:',
      '  rules:',
      '    - if: $CI_MERGE_REQUEST_IID',
      '    - if: $CI_COMMIT_TAG',
      '    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH',
      '',
    ].join('\n'),
  ],
]);

/** The text of a shipped template, or null when Gantry does not ship one of that name. */
export function shippedTemplate(name: string): string | null {
  return SHIPPED_TEMPLATES.get(name) ?? null;
}

/** Where GitLab's include metadata says a template's raw file is. */
export function templateRawUrl(name: string): string {
  return `https://gitlab.com/gitlab-org/gitlab/-/raw/master/lib/gitlab/ci/templates/${name}`;
}
