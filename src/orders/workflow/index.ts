export * from "./answer.ts";
export * from "./context.ts";
export * from "./deadline-job.ts";
export * from "./errors.ts";
export * from "./messages.ts";
export * from "./placement-job.ts";
export type * from "./ports.ts";
export * from "./start.ts";
