/** GitLab's slugs: `CI_COMMIT_REF_SLUG`, `CI_PROJECT_PATH_SLUG`, environment slugs. */
import { createHash } from 'node:crypto';

/** Lowercase, `[^a-z0-9]` → `-`, at most 63 characters, no leading or trailing `-`. */
export function refSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
}

/**
 * `Environment#generate_slug`: lowercase, other characters → `-`, starts with a letter
 * (else `env-`), at most 24 characters, and a 6-character suffix when it was changed or cut.
 * GitLab's suffix is random; ours is derived from the name so it is stable.
 */
export function environmentSlug(name: string): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-+/g, '-');
  if (slug.length > 24 || slug !== name) {
    const suffix = createHash('sha256').update(name).digest('hex').slice(0, 6);
    slug = `${slug.slice(0, 17).replace(/-$/, '')}-${suffix}`;
  }
  return slug;
}
