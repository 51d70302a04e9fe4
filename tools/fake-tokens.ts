/**
 * Slack-shaped tokens for the fakes and the tests: made from parts, so that no token is written out whole in the
 * source (a scan for committed credentials stays quiet), and random unless a test needs a known one.
 */
import { randomBytes } from "node:crypto";

export function fakeSlackToken(kind: "xoxb" | "xapp", id: string = randomBytes(8).toString("hex")): string {
  return kind === "xapp" ? [kind, "1", "A0ORDERDSK", "1", id].join("-") : [kind, id].join("-");
}
