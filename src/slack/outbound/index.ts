/**
 * The one way Order Desk calls Slack's Web API: one client factory, one error class with one mapping of the
 * SDK's errors, named retry policies with one rule for 429s, and the adapters that implement the domain's ports
 * over it (the post-update job's chat, the workflow step's completion).
 */
export { slackApiNotFoundHint } from "./api-url.ts";
export { type BotIdentity, checkBotToken } from "./bot-token.ts";
export { channelMembershipFromClient } from "./channel-members.ts";
export { createSlackChat, type SlackChatOptions, slackChatFromClient, toUpdateError } from "./chat.ts";
export {
  type CreateSlackWebClientOptions,
  createSlackWebClient,
  LogLevel,
  type SlackClientSettings,
  slackClientOptions,
  type WebClient,
} from "./client.ts";
export {
  isCannotPostHere,
  isNotFound,
  SlackCallError,
  type SlackCallErrorCode,
  slackErrorOf,
  toSlackCallError,
} from "./errors.ts";
export { type UploadFileOptions, uploadFile } from "./file-upload.ts";
export {
  type FindPostedArgs,
  findInPages,
  findPosted,
  HISTORY_PAGE_LIMIT,
  HistoryPace,
  type HistoryPaceOptions,
  oldestBefore,
  withMetadata,
} from "./history.ts";
export { RETRY_POLICIES, type RetryPolicy, type RetryPolicyName, retryAfterMsOf } from "./policies.ts";
export { silentSdkLogger, slackSdkLogger } from "./sdk-logger.ts";
export {
  createSlackWorkflowFunctions,
  type SlackWorkflowFunctionsOptions,
  slackWorkflowFunctionsFromClient,
} from "./workflow-functions.ts";
