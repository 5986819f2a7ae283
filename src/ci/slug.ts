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
 * `Gitlab::Slug::Environment`: lowercase, other characters → `-`, starts with a letter
 * (else `env-`), at most 24 characters, and a 6-character suffix when it was changed or cut:
 * the last six base-36 digits of the name's SHA-256 read as one number.
 */
export function environmentSlug(name: string): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-+/g, '-');
  if (slug.length > 24 || slug !== name) {
    const suffix = BigInt(`0x${createHash('sha256').update(name).digest('hex')}`).toString(36).slice(-6);
    return `${slug.slice(0, 17).replace(/-$/, '')}-${suffix}`;
  }
  return slug.replace(/-$/, '');
}
