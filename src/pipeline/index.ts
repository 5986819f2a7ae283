/** Job and pipeline state rules (pure). See reference/ci-config-and-states.md §3–§6. */
export type * from './types.ts';
export { handleEvent } from './events.ts';
export { applyChanges } from './apply.ts';
export {
  canTransition,
  assertTransition,
  invalidTransitionError,
  cannotTransitionVia,
  transitionEventName,
  timestampFieldFor,
  JOB_TRANSITIONS,
  type JobEventName,
  type JobTimestampField,
} from './transitions.ts';
export {
  JOB_STATUSES,
  isJobStatus,
  isCompletedStatus,
  isActiveStatus,
  isAliveStatus,
  isBlockedStatus,
  isCancelableStatus,
} from './statuses.ts';
export {
  compositeStatus,
  compositeOfSymbols,
  compositeSymbolOf,
  StatusAccumulator,
  type CompositeSymbol,
} from './composite.ts';
export { nextPipelineStatus, summarizePipeline, pipelineHasWarnings, type PipelineSummary } from './summary.ts';
export {
  isJobCancelable,
  isJobRetryable,
  isJobPlayable,
  isJobAction,
  assertJobRetryable,
  assertJobPlayable,
  isPipelineCancelable,
  isPipelineRetryable,
} from './capabilities.ts';
export {
  FAILURE_REASONS,
  isFailureReason,
  isRetryWhen,
  normalizeFailureReason,
  isUnrecoverableFailure,
  allowedAutoRetries,
  shouldAutoRetry,
} from './failure-reasons.ts';
export { decideForCreatedJob, priorStatusesAllowing, type ProcessingDecision } from './process.ts';
export { dueScheduledJobIds, nextScheduledAt } from './scheduling.ts';
export { failedJobCancelsPipeline } from './auto-cancel.ts';
export {
  RESOURCE_GROUP_PROCESS_MODES,
  isResourceGroupProcessMode,
  upcomingStatuses,
  pipelineOrder,
  resourceTaker,
  type ResourceGroupProcessMode,
} from './resource-group-modes.ts';
