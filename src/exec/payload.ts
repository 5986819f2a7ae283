/**
 * `--payload JOB`: the job's payload exactly as a runner receives it, from the coordinator's
 * `POST /jobs/request` answered to a runner registered for the purpose, asking with the
 * features of the executor the run would use (a job with reports, `artifacts:exclude` or
 * `allow_failure:exit_codes` goes only to a runner that says it has them).
 */
import { ExecError } from './errors.ts';
import { loadStack, postToLocalApi, type ExecRunnerSettings, type LocalCoordinator } from './session.ts';

export async function requestPayload(local: LocalCoordinator, pipelineId: number, name: string, executor: ExecRunnerSettings['executor']): Promise<unknown> {
  const { INSTANCE_TOKEN_SETTING, Transport, registerRunner, runnerInfo, userAgent, SHELL_FEATURES, DOCKER_FEATURES } = await loadStack();
  const { stores } = local.coordinator.context;
  const jobs = (await stores.jobs.list({ pipelineId }, { offset: 0, limit: 1_000 })).items;
  const job = jobs.find((candidate) => candidate.name === name) ?? jobs.find((candidate) => candidate.definition?.baseName === name);
  if (!job) throw new ExecError(`job "${name}" was not created`);
  if (job.type !== 'build') throw new ExecError(`job "${name}" is a trigger job: no runner ever receives it`);
  if (job.status === 'manual' || job.status === 'scheduled') await local.ci.jobs.play(String(job.project_id), local.root, job.id);
  const registrationToken = (await stores.settings.load())?.settings[INSTANCE_TOKEN_SETTING];
  if (typeof registrationToken !== 'string') throw new Error('the local coordinator has no runner registration token');
  const transport = new Transport({ url: local.url, userAgent: userAgent() });
  try {
    const info = runnerInfo({ name: executor, features: executor === 'docker' ? DOCKER_FEATURES : SHELL_FEATURES });
    const registered = await registerRunner(transport, { registrationToken, description: 'gantry-exec-payload', tagList: job.tag_list, runUntagged: true, locked: false, active: true, info });
    if (registered.kind !== 'registered') throw new ExecError('the local runner could not register');
    const answer = await postToLocalApi(local, '/jobs/request', { token: registered.token, info }, { 'user-agent': userAgent() });
    if (answer.status !== 201) throw new ExecError(`job "${name}" was not handed out (${answer.status}); its status is ${job.status}`);
    return JSON.parse(answer.text) as unknown;
  } finally {
    await transport.close();
  }
}
