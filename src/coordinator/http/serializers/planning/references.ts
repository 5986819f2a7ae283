/** GitLab's IssuableReferences: `#1` or `!1` short and relative (to the issuable's own project), and with the project's full path. */
export interface IssuableReferencesJson {
  short: string;
  relative: string;
  full: string;
}

export function issuableReferences(prefix: '#' | '!', iid: number, projectPath: string): IssuableReferencesJson {
  const short = `${prefix}${iid}`;
  return { short, relative: short, full: `${projectPath}${short}` };
}
