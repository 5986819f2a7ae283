import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unlessMissing } from '../fs/durable.ts';
import { RECEIVE_FSCK_CONFIG } from './config.ts';

/**
 * What the pushing user may do to one ref named in the push: branch states (the hook checks
 * deletion and force pushes of `allowed` ones), refusals of protected-tag changes, and
 * refusals of names no branch or tag may have (for anything but a deletion).
 */
export type RefPolicy =
  | 'unprotected'
  | 'allowed'
  | 'allowed-force'
  | 'denied'
  | 'tag-create'
  | 'tag-update'
  | 'tag-delete'
  | 'branch-name-invalid'
  | 'branch-name-sha'
  | 'tag-name-invalid'
  | 'tag-name-sha';

/** One ref update as git reports it to post-receive. */
export interface RefUpdate {
  ref: string;
  before: string;
  after: string;
}

export const PUSH_MESSAGES = {
  protectedPush: 'You are not allowed to push code to protected branches on this project.',
  protectedForce: 'You are not allowed to force push code to a protected branch on this project.',
  protectedDelete: 'You can only delete protected branches using the web interface.',
  unchecked: 'The push was refused: it names refs the coordinator did not check.',
  protectedTagCreate: 'You are not allowed to create this tag as it is protected.',
  protectedTagUpdate: 'Protected tags cannot be updated.',
  protectedTagDelete: 'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.',
  invalidBranchName: 'You cannot create a branch with an invalid name.',
  shaBranchName: 'You cannot create a branch with a SHA-1 or SHA-256 branch name.',
  prohibitedTagName: 'You cannot create a tag with a prohibited pattern.',
  shaTagName: 'You cannot create a tag with a SHA-1 or SHA-256 tag name.',
} as const;

/**
 * Refs only Gantry writes (merge request heads, persistent pipeline refs): git refuses a push to
 * them ("deny updating a hidden ref") before any hook runs, and does not advertise them to
 * pushers. Fetching them stays open: Gitaly's read-only internal refs.
 */
const RECEIVE_HIDDEN_REFS: Readonly<Record<string, readonly string[]>> = { 'receive.hideRefs': ['refs/merge-requests', 'refs/pipelines'] };

/** Policies longer than this travel in a file (one environment string is limited to 128 KiB). */
const MAX_POLICY_IN_ENVIRONMENT = 32 * 1024;

/**
 * pre-receive: refuses what the coordinator's policy for this push forbids. The policy lists
 * the protected refs of the push ("allowed|denied <ref>" lines, in GANTRY_PUSH_POLICY or the
 * file GANTRY_PUSH_POLICY_FILE); other refs are unprotected. GANTRY_PUSH_REF_COUNT is how many
 * commands the coordinator saw: more lines on stdin means it missed some, and the push is
 * refused. Runs inside git's quarantine, so merge-base sees the pushed objects. Without
 * GANTRY_PUSH_HOOKS the push did not come through the coordinator; nothing is enforced.
 */
const PRE_RECEIVE = `#!/bin/sh
# Installed by Gantry; rewritten before each push when it differs. Enforces protected branches and tags for pushes over HTTP.
[ "\${GANTRY_PUSH_HOOKS:-}" = "1" ] || exit 0
policy() {
  if [ -n "\${GANTRY_PUSH_POLICY_FILE:-}" ]; then cat "$GANTRY_PUSH_POLICY_FILE"; else printf '%s\\n' "\${GANTRY_PUSH_POLICY:-}"; fi
}
has_policy=\${GANTRY_PUSH_POLICY_FILE:-\${GANTRY_PUSH_POLICY:-}}
refused=0
seen=0
while read -r old new ref; do
  seen=$((seen + 1))
  [ -n "$has_policy" ] || continue
  state=$(policy | while read -r policy_state policy_ref; do
    if [ "$policy_ref" = "$ref" ]; then echo "$policy_state"; break; fi
  done)
  [ -n "$state" ] || continue
  case "$state" in
    tag-create) echo "${PUSH_MESSAGES.protectedTagCreate}" >&2; refused=1; continue ;;
    tag-update) echo "${PUSH_MESSAGES.protectedTagUpdate}" >&2; refused=1; continue ;;
    tag-delete) echo "${PUSH_MESSAGES.protectedTagDelete}" >&2; refused=1; continue ;;
    branch-name-invalid) echo "${PUSH_MESSAGES.invalidBranchName}" >&2; refused=1; continue ;;
    branch-name-sha) echo "${PUSH_MESSAGES.shaBranchName}" >&2; refused=1; continue ;;
    tag-name-invalid) echo "${PUSH_MESSAGES.prohibitedTagName}" >&2; refused=1; continue ;;
    tag-name-sha) echo "${PUSH_MESSAGES.shaTagName}" >&2; refused=1; continue ;;
  esac
  case "$new" in *[!0]*) deleting=0 ;; *) deleting=1 ;; esac
  case "$old" in *[!0]*) creating=0 ;; *) creating=1 ;; esac
  if [ "$deleting" = 1 ]; then
    echo "${PUSH_MESSAGES.protectedDelete}" >&2; refused=1
  elif [ "$state" != allowed ] && [ "$state" != allowed-force ]; then
    echo "${PUSH_MESSAGES.protectedPush}" >&2; refused=1
  elif [ "$state" = allowed ] && [ "$creating" = 0 ] && ! git merge-base --is-ancestor "$old" "$new" 2>/dev/null; then
    echo "${PUSH_MESSAGES.protectedForce}" >&2; refused=1
  fi
done
if [ "$seen" -gt "\${GANTRY_PUSH_REF_COUNT:-0}" ]; then
  echo "${PUSH_MESSAGES.unchecked}" >&2; refused=1
fi
exit $refused
`;

/** post-receive: records the accepted updates for the coordinator to publish. */
const POST_RECEIVE = `#!/bin/sh
# Installed by Gantry; rewritten before each push when it differs. Hands accepted ref updates to the coordinator.
if [ -n "\${GANTRY_PUSH_LOG:-}" ]; then cat >> "$GANTRY_PUSH_LOG"; else cat > /dev/null; fi
exit 0
`;

const HOOKS: ReadonlyArray<[string, string]> = [
  ['pre-receive', PRE_RECEIVE],
  ['post-receive', POST_RECEIVE],
];

/**
 * Writes the shared hooks directory when a script is missing or differs (a few small reads
 * per push). Pushes point core.hooksPath at it, so every repository gets the hooks.
 */
export async function ensurePushHooks(hooksDir: string): Promise<void> {
  await mkdir(hooksDir, { recursive: true });
  for (const [name, script] of HOOKS) {
    const target = path.join(hooksDir, name);
    const current = await unlessMissing<string | null>(readFile(target, 'utf8'), null);
    if (current === script) continue;
    // Write then rename: a concurrent push never runs a half-written hook.
    const temporary = `${target}.${randomUUID()}.tmp`;
    await writeFile(temporary, script, { mode: 0o755 });
    await chmod(temporary, 0o755);
    await rename(temporary, target);
  }
}

export interface PushHookSetup {
  /** Environment for the http-backend process. */
  environment: Record<string, string>;
  /** Configuration for the http-backend process: core.hooksPath, and git's object checks (RECEIVE_FSCK_CONFIG) whatever the repository's own config says. */
  config: Record<string, string | readonly string[]>;
  /** Updates accepted by git (read after the process exited); removes the log file. */
  acceptedUpdates(): Promise<RefUpdate[]>;
}

/**
 * Environment and config that make one receive-pack apply `policy` (every ref the push
 * names) and log its accepted updates.
 */
export async function preparePushHooks(hooksDir: string, policy: ReadonlyMap<string, RefPolicy>, commandCount: number): Promise<PushHookSetup> {
  await ensurePushHooks(hooksDir);
  const base = path.join(tmpdir(), `gantry-push-${randomUUID()}`);
  const logFile = `${base}.log`;
  const policyFile = `${base}.policy`;
  const lines = [...policy].filter(([, state]) => state !== 'unprotected').map(([ref, state]) => `${state} ${ref}\n`);
  const policyText = lines.join('');
  const environment: Record<string, string> = { GANTRY_PUSH_HOOKS: '1', GANTRY_PUSH_REF_COUNT: String(commandCount), GANTRY_PUSH_LOG: logFile };
  if (policyText.length > MAX_POLICY_IN_ENVIRONMENT) {
    await writeFile(policyFile, policyText);
    environment.GANTRY_PUSH_POLICY_FILE = policyFile;
  } else {
    environment.GANTRY_PUSH_POLICY = policyText;
  }
  return {
    environment,
    config: { ...RECEIVE_FSCK_CONFIG, ...RECEIVE_HIDDEN_REFS, 'core.hooksPath': hooksDir },
    async acceptedUpdates() {
      // No log: the hook accepted nothing. A log that cannot be read is an error, not "nothing accepted".
      const text = await unlessMissing(readFile(logFile, 'utf8'), '');
      await Promise.all([rm(logFile, { force: true }), rm(policyFile, { force: true })]);
      return parseRefUpdates(text);
    },
  };
}

/** Parses post-receive input: "<old> <new> <ref>" per line. */
export function parseRefUpdates(text: string): RefUpdate[] {
  const updates: RefUpdate[] = [];
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{40,64}) ([0-9a-f]{40,64}) (\S+)$/.exec(line.trim());
    if (match) updates.push({ before: match[1]!, after: match[2]!, ref: match[3]! });
  }
  return updates;
}
