import { GantryError } from '../../shared/errors.ts';
import type { ObjectReader, RepositoryAccess } from './reader.ts';
import { runGit, ZERO_OID } from './run.ts';
import { isValidRefName } from './validate.ts';

export const REF_MESSAGES = {
  branchMoved: (branch: string) => `Could not update ${branch}: the branch changed since you started editing it. Please try again.`,
  invalidBranchName: 'Branch name is invalid',
  invalidReference: (target: string) => `Invalid reference name: ${target}`,
  invalidTagName: 'Tag name invalid',
  invalidTagTarget: (target: string) => `Target ${target} is invalid`,
} as const;

/**
 * Compare-and-swap on one ref: moves `ref` to `next` only while it still points at
 * `expected` (ZERO_OID: only if it does not exist). False when someone else won.
 */
export async function compareAndSwapRef(access: RepositoryAccess, ref: string, next: string, expected: string, reason: string): Promise<boolean> {
  const result = await runGit(access.gitDir, ['update-ref', '-m', reason, ref, next, expected], { allowedExitCodes: [1, 128] });
  return result.exitCode === 0;
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Branch and tag creation and deletion, each a single CAS ref update. */
export class RefWriter {
  constructor(
    private readonly access: RepositoryAccess,
    private readonly reader: ObjectReader,
  ) {}

  async createBranch(name: string, target: string): Promise<boolean> {
    if (!isValidRefName(name)) throw new GantryError('GANTRY_E_REF_NAME_INVALID', REF_MESSAGES.invalidBranchName);
    const commit = await this.reader.resolveCommit(target);
    if (!commit) throw new GantryError('GANTRY_E_REF_NOT_FOUND', REF_MESSAGES.invalidReference(target));
    if (await this.reader.resolveCommit(`refs/heads/${name}`)) return false;
    if (await compareAndSwapRef(this.access, `refs/heads/${name}`, commit, ZERO_OID, 'gantry: create branch')) return true;
    if (await this.reader.resolveCommit(`refs/heads/${name}`)) return false;
    // "a/b" next to an existing "a" (or the reverse): git cannot store both.
    throw new GantryError('GANTRY_E_REF_NAME_INVALID', REF_MESSAGES.invalidBranchName);
  }

  async deleteBranch(name: string): Promise<boolean> {
    return this.deleteRef(`refs/heads/${name}`, name);
  }

  async createTag(name: string, target: string, message: string | null, tagger: { name: string; email: string }): Promise<boolean> {
    if (!isValidRefName(name)) throw new GantryError('GANTRY_E_REF_NAME_INVALID', REF_MESSAGES.invalidTagName);
    const commit = await this.reader.resolveCommit(target);
    if (!commit) throw new GantryError('GANTRY_E_REF_NOT_FOUND', REF_MESSAGES.invalidTagTarget(target));
    if (await this.reader.info(`refs/tags/${name}`)) return false;
    const object = message === null ? commit : await this.writeTagObject(name, commit, message, tagger);
    if (await compareAndSwapRef(this.access, `refs/tags/${name}`, object, ZERO_OID, 'gantry: create tag')) return true;
    if (await this.reader.info(`refs/tags/${name}`)) return false;
    throw new GantryError('GANTRY_E_REF_NAME_INVALID', REF_MESSAGES.invalidTagName);
  }

  async deleteTag(name: string): Promise<boolean> {
    return this.deleteRef(`refs/tags/${name}`, name);
  }

  /**
   * Tags whose objects the repository holds already (through its alternates), created in one
   * transaction: all or none (false when one exists). Names git refuses are left out.
   */
  async importTags(tags: readonly { name: string; object: string }[]): Promise<boolean> {
    return this.importRefs('tags', tags);
  }

  /** Branches on commits the repository holds already, likewise: all or none, names git refuses left out. */
  async importBranches(branches: readonly { name: string; object: string }[]): Promise<boolean> {
    return this.importRefs('heads', branches);
  }

  private async importRefs(kind: 'heads' | 'tags', refs: readonly { name: string; object: string }[]): Promise<boolean> {
    const lines = refs.filter((ref) => isValidRefName(ref.name) && OBJECT_ID.test(ref.object)).map((ref) => `create refs/${kind}/${ref.name} ${ref.object}\n`);
    if (lines.length === 0) return true;
    const result = await runGit(this.access.gitDir, ['update-ref', '-m', `gantry: import ${kind === 'heads' ? 'branches' : 'tags'}`, '--stdin'], { input: lines.join(''), allowedExitCodes: [1, 128] });
    return result.exitCode === 0;
  }

  private async deleteRef(ref: string, name: string): Promise<boolean> {
    if (!isValidRefName(name)) return false;
    const current = await this.reader.info(ref);
    if (!current) return false;
    const result = await runGit(this.access.gitDir, ['update-ref', '-m', 'gantry: delete', '-d', ref, current.id], { allowedExitCodes: [1, 128] });
    return result.exitCode === 0;
  }

  private async writeTagObject(name: string, commit: string, message: string, tagger: { name: string; email: string }): Promise<string> {
    const seconds = Math.floor(Date.now() / 1000);
    const body = message.endsWith('\n') ? message : `${message}\n`;
    const object = `object ${commit}\ntype commit\ntag ${name}\ntagger ${cleanIdentity(tagger.name)} <${cleanIdentity(tagger.email)}> ${seconds} +0000\n\n${body}`;
    const { stdout } = await runGit(this.access.gitDir, ['mktag'], { input: object });
    return stdout.toString('utf8').trim();
  }
}

/** Names and emails go into object headers: no newlines or angle brackets. */
export function cleanIdentity(value: string): string {
  return value.replace(/[<>\u0000-\u001f]/g, '').trim();
}
