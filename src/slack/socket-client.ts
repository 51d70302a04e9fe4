/**
 * Bolt's own Socket Mode client (@slack/socket-mode's `SocketModeClient`) with one change: Slack's `disconnect`
 * message no longer closes the connection on the spot. The client emits `disconnect_requested` with the reason
 * instead, and its owner opens the next connection first and closes this one once the next one said hello
 * (make-before-break, as Slack asks). Every other message (hello, envelopes, acks) takes the library's path.
 *
 * The library's own handling closes the socket at once and opens the next one only after its reconnect delay
 * (5 s): a `/order` sent in that window, after a `refresh_requested` Slack sends routinely, reaches nobody.
 */
import type { Logger as SlackLogger } from "@slack/bolt";
import { SocketModeClient } from "@slack/socket-mode";

export const DISCONNECT_REQUESTED = "disconnect_requested";

/** The `reason` of a Socket Mode `disconnect` message, or null when `data` is anything else. */
export function disconnectReason(data: string | ArrayBuffer, isBinary: boolean): string | null {
  // Envelopes are larger and never mention the word at the top level; skip parsing them twice.
  if (isBinary || typeof data !== "string" || data.length > 2_048 || !data.includes("disconnect"))
    return null;
  try {
    const message = JSON.parse(data) as { type?: unknown; reason?: unknown };
    if (message?.type !== "disconnect") return null;
    return typeof message.reason === "string" ? message.reason : "unknown";
  } catch {
    return null;
  }
}

export class SlackSocketClient extends SocketModeClient {
  protected override async onWebSocketMessage(data: string | ArrayBuffer, isBinary: boolean): Promise<void> {
    const reason = disconnectReason(data, isBinary);
    if (reason !== null && this.listenerCount(DISCONNECT_REQUESTED) > 0) {
      this.emit(DISCONNECT_REQUESTED, reason);
      return;
    }
    await super.onWebSocketMessage(data, isBinary);
  }
}

/**
 * The client's own warnings and errors ("Failed to retrieve a new WSS URL", "WebSocket error") as debug lines:
 * the receiver (socket-receiver.ts) logs each of those events once, saying what it does about it.
 */
export function quieter(logger: SlackLogger): SlackLogger {
  return {
    debug: (...msg) => logger.debug(...msg),
    info: (...msg) => logger.debug(...msg),
    warn: (...msg) => logger.debug(...msg),
    error: (...msg) => logger.debug(...msg),
    setLevel: (level) => logger.setLevel(level),
    getLevel: () => logger.getLevel(),
    setName: (name) => logger.setName(name),
  };
}
