/**
 * The harness's judge (harness/verify.ts) can fail: an order placed twice, under two document numbers, is
 * found by its ticket. (The sandbox refuses a second create with the same number itself, which is why the judge
 * does not count by number.)
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { type FakeSlack, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { KEY, validOrder } from "../sandbox/support.ts";
import { verify } from "./harness/verify.ts";

const CHANNEL = "C0REL001";
let sandbox: SandboxHandle;
let fake: FakeSlack;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY], seed: "verify" });
  fake = await startFakeSlack({ botToken: "xoxb-verify", channels: [{ id: CHANNEL }] });
});
afterAll(async () => {
  await sandbox?.close();
  await fake?.close();
});

async function create(order: object): Promise<number> {
  const res = await fetch(`${sandbox.url}/orders/create`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": KEY },
    body: JSON.stringify(order),
  });
  await res.arrayBuffer();
  return res.status;
}

it("reports an order the supplier accepted twice for one ticket, under two document numbers", async () => {
  const first = validOrder({ customerReference: "REL-1" });
  expect(await create(first)).toBe(200);
  // The same number again is refused by the sandbox: that kind of double cannot happen there.
  expect(await create(first)).not.toBe(200);
  expect(await create(validOrder({ customerReference: "REL-1" }))).toBe(200);
  fake.workspace.addMessage({ channel: CHANNEL, user: fake.botUserId, isBot: true, text: "Order for REL-1" });

  const verdict = await verify(sandbox, fake, 1, [{ ticket: "REL-1", channel: CHANNEL }]);
  expect(verdict.orders).toMatchObject({ ordersPlaced: 1, ordersDoubled: 1, ordersLost: 0 });
  expect(verdict.problems.join("\n")).toContain("REL-1: placed 2 times");
});
