export * from './job-payload.ts';
export { JobPayloadSchema, type JobPayloadShape } from './job-payload-schema.ts';
