/**
 * Baseline Slack app: Bolt 5 on its HTTP receiver, signature verification on, whose view_submission and
 * block_actions handlers only ack. Anything our app does beyond this before its ack is what the slack-ack benchmark measures.
 */

import type { AddressInfo } from "node:net";
import { App, LogLevel } from "@slack/bolt";
import { announceReady, closeOnSignal, readChildConfig } from "../lib/ipc.ts";

const { signingSecret } = readChildConfig<{ signingSecret: string }>();
const app = new App({
  signingSecret,
  // A static token with its bot ids given and verification off: Bolt then makes no auth.test call, at start-up
  // or per request. The API URL points at a closed local port so nothing could ever leave the machine.
  token: "xoxb-ackonly",
  botId: "B0BENCH",
  botUserId: "U0BENCH",
  tokenVerificationEnabled: false,
  clientOptions: { slackApiUrl: "http://127.0.0.1:9/api/" },
  logLevel: LogLevel.ERROR,
});
app.view(/.*/, async ({ ack }) => {
  await ack();
});
// The approve-ack benchmark's clicks.
app.action(/.*/, async ({ ack }) => {
  await ack();
});
const server = await app.start(0);
const { port } = server.address() as AddressInfo;
announceReady({ url: `http://127.0.0.1:${port}`, path: "/slack/events" });
closeOnSignal(() => app.stop().then(() => undefined));
