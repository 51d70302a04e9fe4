export * from "./errors.ts";
export * from "./ids.ts";
export * from "./jobs.ts";
export * from "./payloads.ts";
export { createJobs, type JobsOptions } from "./pgboss/adapter.ts";
export * from "./queues.ts";
export type { JobContext, JobHandler } from "./worker.ts";
export { describeError, MAX_CONSECUTIVE_DEFERRALS } from "./worker.ts";
