/** Reading the Slack Web API's errors: which `error` code a failed call carried. */
import { webApi } from "@slack/bolt";

/** The platform error code (`not_in_channel`, `hash_conflict`…) or null when the call failed otherwise. */
export function slackErrorCode(error: unknown): string | null {
  if (error instanceof Error && (error as { code?: unknown }).code === webApi.ErrorCode.PlatformError) {
    const data = (error as webApi.WebAPIPlatformError).data;
    return typeof data?.error === "string" ? data.error : null;
  }
  return null;
}

/** The bot cannot write in this conversation: not a member, private and unknown to it, or archived. */
export function isCannotPostHere(error: unknown): boolean {
  const code = slackErrorCode(error);
  return code === "not_in_channel" || code === "channel_not_found" || code === "is_archived";
}
