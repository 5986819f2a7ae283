/** Configuration diagnostics are data: a GitLab message plus where it comes from. */

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  severity: Severity;
  /** GitLab's wording, including its location prefix (`jobs:rspec config contains unknown keys: x`). */
  message: string;
  /** Key path inside the merged configuration, `.`-joined (`rspec.artifacts.when`); `` for the root. */
  path: string;
  /** File the offending key comes from (repository path), or null when unknown. */
  file: string | null;
  /** 1-based line, or null when unknown. */
  line: number | null;
}

export type KeyPath = readonly (string | number)[];

/** Positions of the keys of one loaded file. */
export interface FilePositions {
  file: string;
  /** `\u0000`-joined key path → 1-based line. */
  lines: Map<string, number>;
  /** Top-level keys YAML typed as no text (`10:`, `true:`): GitLab takes no job of such a name. */
  untypedKeys?: Set<string>;
}

export function pathKey(path: KeyPath): string {
  return path.join('\u0000');
}

/**
 * Finds the line of a key path across the loaded files. Files are tried in priority
 * order (main file first, because its keys win the include merge); the longest prefix of
 * the path that any file knows is used, so keys merged in by `extends` point at the job.
 */
export class SourceLocator {
  private readonly files: FilePositions[] = [];

  add(positions: FilePositions): void {
    this.files.push(positions);
  }

  /** Top-level keys some loaded file wrote as a number or a boolean. */
  nonTextTopLevelKeys(): Set<string> {
    return new Set(this.files.flatMap((file) => [...(file.untypedKeys ?? [])]));
  }

  locate(path: KeyPath): { file: string | null; line: number | null } {
    for (let length = path.length; length > 0; length--) {
      const key = pathKey(path.slice(0, length));
      for (const file of this.files) {
        const line = file.lines.get(key);
        if (line !== undefined) return { file: file.file, line };
      }
    }
    const main = this.files[0];
    return { file: main ? main.file : null, line: null };
  }
}

/** Collects diagnostics while passes run; each pass reports and carries on. */
export class DiagnosticSink {
  readonly errors: Diagnostic[] = [];
  readonly warnings: Diagnostic[] = [];
  constructor(private readonly locator: SourceLocator) {}

  error(message: string, path: KeyPath): void {
    this.errors.push(this.make('error', message, path));
  }

  warn(message: string, path: KeyPath): void {
    this.warnings.push(this.make('warning', message, path));
  }

  /** An error with a location given by the caller (YAML syntax errors, include errors). */
  errorAt(message: string, file: string | null, line: number | null, path: KeyPath = []): void {
    this.errors.push({ severity: 'error', message, path: path.join('.'), file, line });
  }

  get hasErrors(): boolean {
    return this.errors.length > 0;
  }

  private make(severity: Severity, message: string, path: KeyPath): Diagnostic {
    const { file, line } = this.locator.locate(path);
    return { severity, message, path: path.join('.'), file, line };
  }
}
