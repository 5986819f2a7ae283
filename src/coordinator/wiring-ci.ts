import type { CoordinatorContext } from './context.ts';
import { PipelineProcessing } from './services/pipelines/processing.ts';

/** The CI area's services (pipelines, jobs, statuses, settings), each with its narrow dependencies. */
export function buildCiServices(context: CoordinatorContext) {
  const pipelineProcessing = new PipelineProcessing({ transactions: context.stores.ciTransactions });
  return { pipelineProcessing };
}
