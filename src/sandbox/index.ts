/** The supplier sandbox: a local, spec-faithful Order Placement API with fulfilment and signed webhooks. */
export { runSandbox, SANDBOX_USAGE, type SandboxIo } from "./cli.ts";
export { type Clock, systemClock, type TimerHandle } from "./clock.ts";
export { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_RETRY_SCHEDULE_MS } from "./deliverer.ts";
export { HTTP_STATUS } from "./envelope.ts";
export type { Faults, LateDelivery, Stall } from "./faults.ts";
export { TIMELINE } from "./fulfilment.ts";
export { generateTestKey, SANDBOX_KEY_SERVICE, type SandboxKey } from "./keys.ts";
export {
  SandboxConfigError,
  type SandboxHandle,
  type SandboxOptions,
  startSandbox,
} from "./sandbox.ts";
export type { SandboxEventView, SandboxOrderDetail, SandboxOrderSummary } from "./views.ts";
