/**
 * The notifier counts what it sends to Slack in the same Prometheus counters as the post-update worker: the order
 * message (`chat.postMessage`), its status edits (`chat.update`), admin alerts, and every 429 it waited out.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createMetrics } from "../../src/metrics.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import { ADMIN, type Harness, HELPDESK, startHarness, VALID_FORM } from "./support/harness.ts";

let supplier: StubSupplier;
let h: Harness;
const metrics = createMetrics({ defaultMetrics: false });

beforeAll(async () => {
  supplier = await startStubSupplier([success()]);
  h = await startHarness({ supplierUrl: supplier.baseUrl, apiKey: TEST_KEY, metrics });
});

afterAll(async () => {
  await h?.close();
  await supplier?.close();
});

async function count(counter: "slackPosts" | "slackRateLimited", method: string): Promise<number> {
  const { values } = await metrics[counter].get();
  return values.find((v) => v.labels.method === method)?.value ?? 0;
}

it("counts the order message, its updates, admin alerts and Slack's 429s", async () => {
  h.fake.rateLimit({ method: "chat.postMessage", count: 1, retryAfterSec: 1 });
  const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "MET-1" });
  await h.agent.submit((await h.agent.openedModal(triggerId)).id, {
    ...VALID_FORM,
    ticket: "MET-1",
    profile: "Acme EU",
  });
  const placed = await h.waitForOrder(
    (o) => o.customerReference === "MET-1" && o.status === "received" && o.slackMessageTs !== null,
    "MET-1 placed and its message recorded",
  );
  const message = await h.fake.waitFor(() => {
    const m = h.fake.message(HELPDESK, placed.slackMessageTs ?? "");
    return m && m.versions.length >= 2 ? m : undefined;
  });

  const taken = (method: string) =>
    h.fake.calls(method).filter((c) => c.httpStatus === 200 && c.response?.ok === true).length;
  expect(await count("slackRateLimited", "chat.postMessage")).toBe(1);
  expect(await count("slackPosts", "chat.postMessage")).toBe(taken("chat.postMessage"));
  // The fake records an edit before the app reads Slack's answer and counts it.
  await expect.poll(() => count("slackPosts", "chat.update")).toBe(message.versions.length - 1);
  expect(await count("slackPosts", "chat.update")).toBe(taken("chat.update"));

  const before = await count("slackPosts", "chat.postMessage");
  await h.slack.notifier.alertAdmins({ key: "metrics-test", title: "Test alert", text: "Counted." });
  expect(h.fake.topLevel(ADMIN).map((m) => m.text)).toEqual([":rotating_light: Test alert: Counted."]);
  expect(await count("slackPosts", "chat.postMessage")).toBe(before + 1);
});
