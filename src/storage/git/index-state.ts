/** The files of a temporary index as a commit's actions change them, with the changes to write back. */
export class IndexState {
  private readonly files = new Map<string, { mode: string; id: string }>();
  /** How many files live below each directory, for file/directory clash checks. */
  private readonly directories = new Map<string, number>();
  private readonly changed = new Set<string>();

  /** Parses `git ls-files -s -z`: "<mode> <id> <stage>\t<path>\0". */
  static fromLsFiles(output: Buffer): IndexState {
    const state = new IndexState();
    for (const record of output.toString('utf8').split('\0')) {
      const tab = record.indexOf('\t');
      if (tab < 0) continue;
      const [mode = '', id = ''] = record.slice(0, tab).split(' ');
      state.insert(record.slice(tab + 1), mode, id);
    }
    return state;
  }

  has(filePath: string): boolean {
    return this.files.has(filePath);
  }

  get(filePath: string): { mode: string; id: string } | undefined {
    return this.files.get(filePath);
  }

  isDirectory(filePath: string): boolean {
    return (this.directories.get(filePath) ?? 0) > 0;
  }

  /** Whether a parent directory of the path is a file ("a" when creating "a/b"). */
  fileAbove(filePath: string): boolean {
    return parentsOf(filePath).some((parent) => this.files.has(parent));
  }

  set(filePath: string, mode: string, id: string): void {
    if (this.files.has(filePath)) this.files.set(filePath, { mode, id });
    else this.insert(filePath, mode, id);
    this.changed.add(filePath);
  }

  remove(filePath: string): void {
    if (!this.files.delete(filePath)) return;
    for (const parent of parentsOf(filePath)) this.directories.set(parent, (this.directories.get(parent) ?? 1) - 1);
    this.changed.add(filePath);
  }

  /** `update-index -z --index-info` input: removals first, so "a" can become "a/b" in one commit. */
  indexInfo(): string {
    const removals: string[] = [];
    const additions: string[] = [];
    for (const filePath of this.changed) {
      const entry = this.files.get(filePath);
      if (entry) additions.push(`${entry.mode} ${entry.id}\t${filePath}\0`);
      else removals.push(`0 0000000000000000000000000000000000000000\t${filePath}\0`);
    }
    return removals.join('') + additions.join('');
  }

  private insert(filePath: string, mode: string, id: string): void {
    this.files.set(filePath, { mode, id });
    for (const parent of parentsOf(filePath)) this.directories.set(parent, (this.directories.get(parent) ?? 0) + 1);
  }
}

function parentsOf(filePath: string): string[] {
  const parents: string[] = [];
  let slash = filePath.indexOf('/');
  while (slash > 0) {
    parents.push(filePath.slice(0, slash));
    slash = filePath.indexOf('/', slash + 1);
  }
  return parents;
}
