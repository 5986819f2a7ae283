import type { PipelineRecord } from '../../../storage/types-ci.ts';

/** Statuses pipelines-email reports (GitLab mails finished pipelines that succeeded or failed). */
export const MAILED_PIPELINE_STATUSES: ReadonlySet<string> = new Set(['success', 'failed']);

export interface PipelineEmailInput {
  pipeline: PipelineRecord;
  projectPath: string;
  projectUrl: string;
  commitTitle: string | null;
  triggeredBy: string | null;
}

/** GitLab's pipeline email: the status in the subject, then the project, ref, commit, who triggered it and the link. */
export function buildPipelineEmail(input: PipelineEmailInput): { subject: string; text: string } {
  const { pipeline } = input;
  const ref = pipeline.ref;
  const shortSha = pipeline.sha.slice(0, 8);
  const outcome = pipeline.status === 'success' ? 'Successful' : 'Failed';
  const subject = `${outcome} pipeline for ${ref} | ${input.projectPath} | ${shortSha}`;
  const lines = [
    `Your pipeline has ${pipeline.status === 'success' ? 'passed' : 'failed'}.`,
    '',
    `Project: ${input.projectPath} ( ${input.projectUrl} )`,
    `${pipeline.tag ? 'Tag' : 'Branch'}: ${ref}`,
    `Commit: ${shortSha}${input.commitTitle ? ` ( ${input.commitTitle} )` : ''}`,
    `Pipeline #${pipeline.id} ( ${input.projectUrl}/-/pipelines/${pipeline.id} ) ${pipeline.status === 'success' ? 'passed' : 'failed'}`,
    ...(input.triggeredBy ? [`Triggered by ${input.triggeredBy}`] : []),
    ...(pipeline.duration === null ? [] : [`Duration: ${pipeline.duration} s`]),
  ];
  return { subject, text: `${lines.join('\n')}\n` };
}

/** Addresses of a comma- or whitespace-separated list (pipelines-email uses commas, emails-on-push whitespace). */
export function addressList(recipients: string): string[] {
  return [...new Set(recipients.split(/[\s,]+/).filter((address) => address.includes('@')))];
}
