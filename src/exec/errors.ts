/** A failure `runner exec` reports as one line (not a git tree, unknown job, no CI file, ...). */
export class ExecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExecError';
  }
}
