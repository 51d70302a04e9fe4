/**
 * Slack took a post and its answer never reached the app: the connection dropped after Slack stored it
 * (`lost_answer`), or Slack answered after the client's timeout (`late_answer`).
 */
import type { FaultScope } from "../../../tools/fake-slack/index.ts";
import type { Harness } from "./harness.ts";

/** Longer than the client's timeout (the harness's 5 s): the app has given up on the call by then. */
export const LATE_MS = 8_000;

export const LOST_ANSWER_MODES = ["lost_answer", "late_answer"] as const;
export type LostAnswerMode = (typeof LOST_ANSWER_MODES)[number];

/** Slack takes the next chat.postMessage matching `scope`, and its answer never reaches the app in time. */
export function interruptNextPost(h: Harness, mode: LostAnswerMode, scope: FaultScope): void {
  if (mode === "lost_answer") h.fake.loseAnswerNext("chat.postMessage", 1, scope);
  else h.fake.answerLateNext("chat.postMessage", LATE_MS, 1, scope);
}
