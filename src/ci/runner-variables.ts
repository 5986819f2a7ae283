/**
 * The job's variables as GitLab hands them to the runner (`runner_variables`): sorted so that
 * each comes after the variables it refers to, and each expanded against those before it
 * (`sort_and_expand_all` keeping unknown references, references to file and raw variables as
 * written). So `B: ${A}-b` and `C: ${B}-c` reach the runner as `a-b` and `a-b-c`, where the
 * runner alone, expanding each value once, would leave `${A}-b-c`; and `${URL_${ENV}}` becomes
 * `${URL_DEV}`, which the runner then expands. `$$` and `%%` stay for the runner to unescape.
 * A reference cycle between variables leaves the whole list as it was, as GitLab's sort does.
 */
import type { JobVariable } from '../protocol/job-payload.ts';

/** GitLab's `VARIABLES_REGEXP`: escapes first, then `$NAME`, `${NAME}` (or `${}`), `%NAME%`. */
const REFERENCE = /\$\$|%%|\$([A-Za-z_][A-Za-z0-9_]*)|\$\{([A-Za-z_][A-Za-z0-9_]*)?\}|%([A-Za-z_][A-Za-z0-9_]*)%/g;

/** An expanded value is held to this many characters (or its own length): values that double each other cannot grow without bound. */
const MAX_EXPANDED = 64 * 1024;

export function sortAndExpandForRunner(variables: readonly JobVariable[]): JobVariable[] {
  const references = variables.map(referencedNames);
  if (references.every((names) => names === null || names.length === 0)) return [...variables];
  const byKey = new Map<string, number[]>();
  variables.forEach((variable, index) => {
    const same = byKey.get(variable.key);
    if (same) same.push(index);
    else byKey.set(variable.key, [index]);
  });
  const children = references.map((names) => (names ?? []).flatMap((name) => byKey.get(name) ?? []));
  const order = dependencyOrder(children);
  if (order === null) return [...variables];

  const expanded: JobVariable[] = [];
  const lastByKey = new Map<string, JobVariable>();
  for (const index of order) {
    const variable = variables[index];
    const value = references[index] === null ? variable.value : expandValue(variable.value, lastByKey);
    const result = value === variable.value ? variable : { ...variable, value };
    expanded.push(result);
    lastByKey.set(result.key, result);
  }
  return expanded;
}

/** The names a value refers to; null when it is raw or has no `$` or `%` (GitLab's `depends_on`). */
function referencedNames(variable: JobVariable): string[] | null {
  if (variable.raw || (!variable.value.includes('$') && !variable.value.includes('%'))) return null;
  const names: string[] = [];
  for (const match of variable.value.matchAll(REFERENCE)) {
    const name = match[1] ?? match[2] ?? match[3];
    if (name !== undefined) names.push(name);
  }
  return names;
}

function expandValue(value: string, known: ReadonlyMap<string, JobVariable>): string {
  const expanded = value.replace(REFERENCE, (reference, plain?: string, braced?: string, percent?: string) => {
    const name = plain ?? braced ?? percent;
    if (name === undefined) return reference;
    const variable = known.get(name);
    // A file variable's path and a raw variable's value are the runner's to put in.
    if (variable === undefined || variable.file || variable.raw) return reference;
    return variable.value;
  });
  return expanded.slice(0, Math.max(MAX_EXPANDED, value.length));
}

/**
 * Tarjan's strongly connected components over the variables (Ruby's TSort, which GitLab uses):
 * the order in which they finish, each after the variables it refers to, or null when two or
 * more refer to each other. Iterative: a long chain of references must not exhaust the stack.
 */
function dependencyOrder(children: readonly number[][]): number[] | null {
  const count = children.length;
  const index = new Array<number>(count).fill(-1);
  const low = new Array<number>(count).fill(0);
  const onStack = new Array<boolean>(count).fill(false);
  const stack: number[] = [];
  const order: number[] = [];
  let next = 0;
  const visit = (node: number): void => {
    index[node] = next;
    low[node] = next;
    next += 1;
    stack.push(node);
    onStack[node] = true;
  };
  for (let root = 0; root < count; root++) {
    if (index[root] !== -1) continue;
    visit(root);
    const frames: Array<{ node: number; child: number }> = [{ node: root, child: 0 }];
    while (frames.length > 0) {
      const frame = frames[frames.length - 1];
      const edges = children[frame.node];
      if (frame.child < edges.length) {
        const child = edges[frame.child++];
        if (index[child] === -1) {
          visit(child);
          frames.push({ node: child, child: 0 });
        } else if (onStack[child]) {
          low[frame.node] = Math.min(low[frame.node], index[child]);
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low[parent.node] = Math.min(low[parent.node], low[frame.node]);
      if (low[frame.node] !== index[frame.node]) continue;
      const component: number[] = [];
      let member: number;
      do {
        member = stack.pop() as number;
        onStack[member] = false;
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1) return null;
      order.push(frame.node);
    }
  }
  return order;
}
