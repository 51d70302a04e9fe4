import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refuseFutureRequests } from "../../src/slack/request-age.ts";

const NOW = Date.UTC(2026, 10, 24, 10, 0, 0);
let url = "";
let reached = 0;
const server = createServer(
  refuseFutureRequests(
    ((_req, res) => {
      reached++;
      res.end("handled");
    }) satisfies RequestListener,
    { now: () => NOW },
  ),
);

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (stamp: number) =>
  fetch(url, { method: "POST", headers: { "x-slack-request-timestamp": String(stamp) }, body: "payload=x" });

describe("Slack requests from the future", () => {
  it("refuses a request stamped more than five minutes ahead, saying to check the clocks", async () => {
    const res = await post(NOW / 1000 + 6 * 60);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ ok: false, error: "request_from_the_future" });
    expect(reached).toBe(0);
  });

  it("passes requests within five minutes, and old ones (Bolt refuses those), to the receiver", async () => {
    for (const stamp of [NOW / 1000, NOW / 1000 + 4 * 60, NOW / 1000 - 10 * 60]) {
      const res = await post(stamp);
      expect(await res.text()).toBe("handled");
    }
    expect(reached).toBe(3);
  });
});
