/**
 * A fake Slack for tests and `npm run demo`: the Web API (point Bolt's `clientOptions.slackApiUrl` at
 * `fake.apiUrl`) and Socket Mode (`apps.connections.open` and its WebSocket). Drive the app with `SlackUser`
 * (signed requests to its HTTP receiver, or envelopes over its socket), inspect what it posted, and inject
 * Slack's failures.
 */
export { LIMITS, validateBlocks, validateView } from "./blocks.ts";
export type { HeldCall } from "./faults.ts";
export type { Clock } from "./ids.ts";
export { type Injection, type InjectionOptions, injectionsIn } from "./injections.ts";
export {
  type ChannelInput,
  DEFAULT_BOT_SCOPES,
  DEFAULT_FUNCTION_OUTPUTS,
  type FakeSlack,
  type FakeSlackOptions,
  type FaultScope,
  type ResponseUrlPost,
  startFakeSlack,
  type ViewResponseOutcome,
  type WaitForOptions,
} from "./server.ts";
export {
  type AckRecord,
  type ConnectionRecord,
  type Delivery,
  DeliveryFailed,
  type EnvelopeRecord,
  type EnvelopeType,
  type FakeSocketMode,
  type SocketModeOptions,
  type Undelivered,
} from "./socket/records.ts";
export type {
  CallRecord,
  FakeChannel,
  FakeEphemeral,
  FakeFile,
  FakeFunctionExecution,
  FakeMessage,
  FakeUser,
  FakeUsergroup,
  FakeView,
} from "./state.ts";
export { messageLines, renderTranscript, statusLine, type TranscriptOptions } from "./transcript.ts";
export {
  type Interaction,
  runWorkflowStep,
  SlackUser,
  type SlackUserOptions,
  type Submission,
} from "./user.ts";
export { type TypedValue, viewState } from "./view-state.ts";
