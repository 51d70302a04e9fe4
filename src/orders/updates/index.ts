export type { FindReplyArgs, PostMessageArgs, SlackChat, UpdateMessageArgs } from "./chat-port.ts";
export { enqueuePostUpdate, type PostUpdateJobData, postUpdateJobId } from "./enqueue.ts";
export * from "./errors.ts";
export { OrderBusyError, OrderLocks } from "./order-lock.ts";
export { ChannelPacer, type PacerOptions, type Reservation } from "./pacer.ts";
export { createPostUpdateWorker, workPostUpdates } from "./post-update.ts";
export type {
  ParentMessage,
  PostOutcome,
  PostUpdateDeps,
  PostUpdateWorker,
  ReplyMessage,
  ReplyOptions,
  UpdatePresenter,
} from "./post-update-deps.ts";
export {
  foldTracking,
  readTracking,
  type TrackingDoc,
  type TrackingInfo,
  trackingInfoOf,
} from "./tracking.ts";
export {
  type BroadcastKind,
  type BroadcastSettings,
  decideReply,
  type Milestone,
  type ReplyDecision,
  type UpdatesVerbosity,
  updatesFor,
} from "./verbosity.ts";
