/** An uploaded avatar is stored as its path on this instance; the API answers it as a full URL (GitLab's `avatar_url`). */
export function avatarUrl(stored: string | null, externalUrl: string): string | null {
  return stored !== null && stored.startsWith('/') ? `${externalUrl}${stored}` : stored;
}
