/**
 * `workflow:name` → the pipeline's name (`CI_PIPELINE_NAME`), as GitLab's pipeline metadata
 * step makes it: its variables expanded from the pipeline's (nested-expansion.ts), trimmed, cut
 * to 255 characters, and null when nothing is left.
 */
import { MAX_PIPELINE_NAME } from './entries/root.ts';
import { expandNested } from './nested-expansion.ts';

export function pipelineName(template: string | null, lookup: (name: string) => string | undefined): string | null {
  if (template === null) return null;
  const name = expandNested(template, (key) => {
    const value = lookup(key);
    return value === undefined ? undefined : { value };
  }).trim().slice(0, MAX_PIPELINE_NAME);
  return name === '' ? null : name;
}
