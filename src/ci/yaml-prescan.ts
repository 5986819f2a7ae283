/**
 * A look at a YAML text's tokens before any document is built: how deep its collections nest
 * and how many aliases it has. Building the document of a 1 MB text of `[[[[…` takes
 * hundreds of megabytes and seconds; the lexer needs a few and keeps nothing, so an
 * over-deep or alias-heavy text is refused first.
 *
 * Depth: flow collections count their `[`/`{`; block collections are tracked by the column
 * where each starts (a `- ` item, a `? ` key, a `key:`), as the parser would nest them.
 */
import { CST, Lexer } from 'yaml';

export interface PrescanLimits {
  maxYamlDepth: number;
  maxAliasCount: number;
}

export type PrescanProblem = 'too-deep' | 'too-many-aliases';

type BlockKind = 'seq' | 'map';

export function prescanYaml(text: string, limits: PrescanLimits): PrescanProblem | null {
  const blocks: Array<{ column: number; kind: BlockKind }> = [];
  let flowDepth = 0;
  let aliases = 0;
  let column = 0;
  // Column of the first token of the node being read on this line (a possible implicit key).
  let nodeColumn: number | null = null;
  let scalarBody = false;

  const openBlock = (at: number, kind: BlockKind): boolean => {
    while ((blocks.at(-1)?.column ?? -1) > at) blocks.pop();
    const top = blocks.at(-1);
    if (top && top.column === at) {
      if (top.kind === kind) return true;
      // A sequence may sit at its parent key's column; a key at a sequence's column ends it.
      if (top.kind === 'seq') {
        blocks.pop();
        const parent = blocks.at(-1);
        if (parent && parent.column === at && parent.kind === kind) return true;
      }
    }
    blocks.push({ column: at, kind });
    return blocks.length <= limits.maxYamlDepth;
  };

  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (scalarBody) {
      // The source of a scalar: whatever its first character, it is a value.
      scalarBody = false;
      if (flowDepth === 0 && !/^\s/.test(token)) nodeColumn ??= column;
    } else if (token === CST.SCALAR) {
      scalarBody = true;
    } else if (type === 'doc-mode' || type === 'doc-start') {
      blocks.length = 0;
      flowDepth = 0;
    } else if (type === 'flow-error-end') {
      flowDepth = 0;
    } else if (type === 'flow-seq-start' || type === 'flow-map-start') {
      nodeColumn ??= column;
      flowDepth++;
      if (blocks.length + flowDepth > limits.maxYamlDepth) return 'too-deep';
    } else if (type === 'flow-seq-end' || type === 'flow-map-end') {
      flowDepth = Math.max(0, flowDepth - 1);
    } else if (type === 'alias') {
      if (++aliases > limits.maxAliasCount) return 'too-many-aliases';
      nodeColumn ??= column;
    } else if (flowDepth === 0) {
      if (type === 'seq-item-ind' || type === 'explicit-key-ind') {
        if (!openBlock(column, type === 'seq-item-ind' ? 'seq' : 'map')) return 'too-deep';
        nodeColumn = null;
      } else if (type === 'map-value-ind') {
        if (nodeColumn !== null && !openBlock(nodeColumn, 'map')) return 'too-deep';
        nodeColumn = null;
      } else if (type === 'newline') {
        nodeColumn = null;
      } else if (type !== 'space' && type !== 'comment' && type !== 'byte-order-mark' && !isControl(token)) {
        nodeColumn ??= column;
      }
    }
    column = advance(column, token);
  }
  return null;
}

function isControl(token: string): boolean {
  return token === CST.SCALAR || token === CST.DOCUMENT || token === CST.FLOW_END || token === CST.BOM;
}

function advance(column: number, token: string): number {
  if (isControl(token)) return column;
  const newline = token.lastIndexOf('\n');
  return newline === -1 ? column + token.length : token.length - newline - 1;
}
