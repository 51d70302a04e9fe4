/**
 * The fake Slack Web API as a stand-alone dev tool:
 *
 *   npx tsx tools/fake-slack/main.ts --token xoxb-dev --channel C0ORDERS:it-orders [--port 3100]
 *
 * Point Order Desk at it with SLACK_API_URL, drive it with signed requests (tools/slack-requests.ts) or, in
 * Socket Mode (any xapp-… token opens a connection), with envelopes (tools/socket-mode-requests.ts), and
 * stop it with Ctrl-C to print every channel as a transcript.
 */
import { parseArgs } from "node:util";
import { startFakeSlack } from "./server.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    token: { type: "string", default: "xoxb-fakedev" },
    channel: { type: "string", multiple: true, default: ["C0ORDERS:it-orders"] },
    "not-member": { type: "string", multiple: true, default: [] },
  },
});

const notMember = new Set(values["not-member"]);
const fake = await startFakeSlack({
  botToken: values.token,
  host: values.host,
  port: Number(values.port),
  channels: values.channel.map((spec) => {
    const [id = spec, name] = spec.split(":");
    return { id, ...(name ? { name } : {}), botIsMember: !notMember.has(id) };
  }),
});

process.stdout.write(`Fake Slack Web API listening at ${fake.apiUrl} (Socket Mode: any xapp-… token)\n`);
process.stdout.write(
  `Bot token: ${values.token.slice(0, 5)}… (pass the same token to the app). Ctrl-C prints the transcripts.\n`,
);

const stop = async () => {
  for (const channel of fake.workspace.channels.keys()) {
    if (fake.messages(channel).length > 0) process.stdout.write(`\n${fake.transcript(channel)}\n`);
  }
  await fake.close();
  process.exit(0);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
