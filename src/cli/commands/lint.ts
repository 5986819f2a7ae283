/**
 * `runner lint [FILE]`: compile a CI file of the working tree and print its stages and
 * jobs (with the rules outcome for --ref/--tag/--variable/--env-file, and --input for its
 * spec:inputs) or its diagnostics.
 * The CLI edge: the only place here that reads the disk.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { CompileSandbox } from '../../ci-sandbox/index.ts';
import { formatLintText, lintReport } from '../../ci/index.ts';
import type { CompileContext, ContextVariable, RepositoryReader } from '../../ci/index.ts';
import { mergedByKey, readEnvFiles } from '../../exec/local-variables.ts';
import { parseInputPairs } from '../input-pairs.ts';

export interface LintArgs {
  file?: string;
  ref?: string;
  tag?: string;
  variable?: string[];
  envFile?: string[];
  input?: string[];
  json?: boolean;
}

export interface LintIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
}

const MAX_LISTED_FILES = 50_000;
const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);

export async function runLint(argv: LintArgs, io: LintIo): Promise<number> {
  const filePath = path.resolve(io.cwd, argv.file ?? '.gitlab-ci.yml');
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (error) {
    io.stderr(`runner lint: cannot read ${filePath}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  let variables: ContextVariable[];
  let inputs: Record<string, string>;
  try {
    // As `runner exec`'s: the files' variables in order, then --variable over them.
    const fromFiles = await readEnvFiles(argv.envFile ?? [], io.cwd);
    variables = mergedByKey(fromFiles, parseVariables(argv.variable ?? [])).map(({ key, value }) => ({ key, value, source: 'pipeline' }));
    inputs = parseInputPairs(argv.input ?? []);
  } catch (error) {
    io.stderr(`runner lint: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const root = path.dirname(filePath);
  const context: CompileContext = {
    project: { id: 0, path: `local/${path.basename(root)}` },
    ref: argv.tag ?? argv.ref ?? 'main',
    refType: argv.tag ? 'tag' : 'branch',
    sha: '0'.repeat(40),
    source: 'push',
    variables,
    changedPaths: null,
    files: diskReader(root),
    configPath: path.relative(root, filePath) || path.basename(filePath),
    ...(Object.keys(inputs).length > 0 ? { inputs, inputsAreText: true } : {}),
  };
  // The same sandbox as the coordinator's: a hostile file cannot hang or exhaust the CLI.
  const sandbox = new CompileSandbox({ workers: 1 });
  const result = await sandbox.compile(text, context).finally(() => sandbox.close());
  const report = lintReport(result);
  io.stdout(argv.json ? `${JSON.stringify(report, null, 2)}\n` : formatLintText(report));
  return report.valid ? 0 : 1;
}

function parseVariables(pairs: string[]): Array<{ key: string; value: string }> {
  return pairs.map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--variable expects KEY=VALUE, got "${pair}"`);
    return { key: pair.slice(0, at), value: pair.slice(at + 1) };
  });
}

function diskReader(root: string): RepositoryReader {
  const inside = (relative: string): string | null => {
    const absolute = path.resolve(root, relative);
    return absolute === root || absolute.startsWith(root + path.sep) ? absolute : null;
  };
  return {
    async readFile(relative) {
      const absolute = inside(relative);
      if (!absolute) return null;
      try {
        return await readFile(absolute, 'utf8');
      } catch {
        return null;
      }
    },
    async listFiles() {
      const files: string[] = [];
      const walk = async (directory: string): Promise<void> => {
        if (files.length >= MAX_LISTED_FILES) return;
        const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
        for (const entry of entries) {
          const absolute = path.join(directory, entry.name);
          if (entry.isDirectory()) {
            if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(absolute);
          } else if (files.length < MAX_LISTED_FILES) {
            files.push(path.relative(root, absolute).split(path.sep).join('/'));
          }
        }
      };
      await walk(root);
      return files;
    },
  };
}
