/**
 * One Socket Mode envelope handed to Bolt as Bolt's own SocketModeReceiver hands it: the body, an `ack` that
 * answers once (a second call is ignored with a warning), Slack's retry number and reason, and Bolt's default
 * error handler deciding whether a failed event is acked anyway.
 */
import type { App, ReceiverEvent, Logger as SlackLogger } from "@slack/bolt";
import { defaultProcessEventErrorHandler } from "./bolt.ts";

/** What @slack/socket-mode's client emits as `slack_event` for each envelope. */
export interface SocketEnvelope {
  ack(response?: Record<string, unknown>): Promise<void>;
  envelope_id: string;
  body: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
}

export async function handToBolt(app: App, envelope: SocketEnvelope, logger: SlackLogger): Promise<void> {
  let acked = false;
  const event: ReceiverEvent = {
    body: envelope.body,
    ack: async (response?: Record<string, unknown>) => {
      if (acked) {
        logger.warn("ack() has already been called; this call is ignored");
        return;
      }
      acked = true;
      await envelope.ack(response);
    },
    ...(envelope.retry_num !== undefined ? { retryNum: envelope.retry_num } : {}),
    ...(envelope.retry_reason !== undefined ? { retryReason: envelope.retry_reason } : {}),
    customProperties: {},
  };
  try {
    await app.processEvent(event);
  } catch (error) {
    if (await defaultProcessEventErrorHandler({ error: error as Error, logger, event })) await event.ack();
  }
}
