/** GitLab's Gitlab::Access names of member levels ("Developer"), as its messages and member events spell them. */
export function accessLevelName(level: number): string {
  return ({ 5: 'Minimal Access', 10: 'Guest', 15: 'Planner', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' } as Record<number, string>)[level] ?? String(level);
}
