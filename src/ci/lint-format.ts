/** What `runner lint` shows: a JSON report for machines, a table for people. */
import { describeTrigger } from './bridges.ts';
import type { Diagnostic } from './diagnostics.ts';
import type { CompileResult, JobDefinition, TriggerDefinition } from './model.ts';

export interface LintJob {
  name: string;
  stage: string;
  when: string;
  allowFailure: boolean;
  /** `allow_failure: {exit_codes}`: the exit codes that make a failure allowed (absent when none). */
  allowFailureExitCodes?: number[];
  needs: string[] | null;
  included: boolean;
  /** `rules: #2`, `rules: no match`, `only/except`, `default`. */
  decidedBy: string;
  /** Bridges only: the downstream pipeline they create (absent for ordinary jobs). */
  trigger?: TriggerDefinition;
}

export interface LintReport {
  valid: boolean;
  status: CompileResult['status'];
  reason: string | null;
  stages: string[];
  jobs: LintJob[];
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

export function lintReport(result: CompileResult): LintReport {
  const all = [...result.jobs, ...result.excludedJobs].sort((a, b) => a.stageIndex - b.stageIndex);
  return {
    valid: result.status !== 'invalid',
    status: result.status,
    reason: result.reason,
    stages: result.declaredStages,
    jobs: all.map(lintJob),
    errors: result.errors,
    warnings: result.warnings,
  };
}

function lintJob(job: JobDefinition): LintJob {
  const { inclusion } = job;
  let decidedBy: string = inclusion.decidedBy;
  if (inclusion.decidedBy === 'rules') {
    decidedBy = inclusion.matchedRule === null ? 'rules: no match' : `rules: #${inclusion.matchedRule + 1}`;
  }
  return {
    name: job.name,
    stage: job.stage,
    when: inclusion.included ? job.when : 'never',
    allowFailure: job.allowFailure,
    ...(job.allowFailureExitCodes ? { allowFailureExitCodes: job.allowFailureExitCodes } : {}),
    needs: job.needs?.map((need) => need.job) ?? null,
    included: inclusion.included,
    decidedBy,
    ...(job.trigger ? { trigger: job.trigger } : {}),
  };
}

export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where = diagnostic.file ? `${diagnostic.file}${diagnostic.line === null ? '' : `:${diagnostic.line}`}: ` : '';
  return `${where}${diagnostic.severity}: ${diagnostic.message}`;
}

export function formatLintText(report: LintReport): string {
  const lines: string[] = [];
  if (!report.valid) {
    lines.push('Status: syntax is incorrect');
    for (const error of report.errors) lines.push(formatDiagnostic(error));
    for (const warning of report.warnings) lines.push(formatDiagnostic(warning));
    return `${lines.join('\n')}\n`;
  }
  lines.push('Status: syntax is correct');
  if (report.reason) lines.push(`Pipeline: ${report.status} (${report.reason})`);
  lines.push(`Stages: ${report.stages.join(', ')}`);
  // The TRIGGER column only appears when the pipeline has bridges.
  const bridges = report.jobs.some((job) => job.trigger);
  const header = ['NAME', 'STAGE', 'WHEN', 'ALLOW FAILURE', 'NEEDS', 'DECIDED BY', ...(bridges ? ['TRIGGER'] : [])];
  const rows = report.jobs.map((job) => [
    job.name,
    job.stage,
    job.when,
    job.allowFailure ? 'yes' : job.allowFailureExitCodes ? `exit codes ${job.allowFailureExitCodes.join(', ')}` : 'no',
    job.needs === null ? '-' : job.needs.length === 0 ? '[]' : job.needs.join(', '),
    job.decidedBy,
    ...(bridges ? [job.trigger ? `trigger: ${describeTrigger(job.trigger)}` : '-'] : []),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const render = (row: string[]): string => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  lines.push('', render(header), ...rows.map(render));
  for (const warning of report.warnings) lines.push(formatDiagnostic(warning));
  return `${lines.join('\n')}\n`;
}
