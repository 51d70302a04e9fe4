/**
 * The supplier rejects our API key (401) even after the key is read again: the admin channel is told once, with
 * the key redacted, however many orders fail; a 401 is not retried by the queue (it is a 4xx: the same keys
 * would be refused again), so each order ends as not placed at once, says why, and can be resubmitted once the
 * key is fixed. Each order not placed also gets its own alert, with Retry now (test/slack/operator-actions.test.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { redactApiKey } from "../../src/supplier/keys.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier } from "../supplier/support/stub-supplier.ts";
import { ADMIN, type Harness, HELPDESK, startHarness, VALID_FORM } from "./support/harness.ts";

let supplier: StubSupplier;
let h: Harness;

beforeAll(async () => {
  supplier = await startStubSupplier([{ status: 401, body: "" }]);
  h = await startHarness({
    supplierUrl: supplier.baseUrl,
    apiKey: TEST_KEY,
    retryLimit: 1,
    retryDelaySeconds: 1,
  });
});

afterAll(async () => {
  await h?.close();
  await supplier?.close();
});

it("alerts the admin channel once with the key redacted, and ends the orders as not placed", async () => {
  for (const ticket of ["KEY-1", "KEY-2"]) {
    const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
    const view = await h.agent.openedModal(triggerId);
    const submitted = await h.agent.submit(view.id, { ...VALID_FORM, ticket, profile: "Acme EU" });
    expect(submitted.outcome.outcome).toBe("closed");
  }
  for (const ticket of ["KEY-1", "KEY-2"]) {
    const failed = await h.waitForOrder(
      (o) => o.customerReference === ticket && o.status === "failed",
      ticket,
      15_000,
    );
    expect(failed.failure).toMatchObject({ kind: "failed", code: "UNAUTHORIZED" });
    expect(failed.failure).not.toHaveProperty("retriesExhausted");
    const shown = await h.fake.waitFor(() => {
      const m = h.fake.message(failed.slackChannelId ?? "", failed.slackMessageTs ?? "");
      const blocks = JSON.stringify(m?.versions.at(-1)?.blocks);
      return blocks.includes("rejected our API key") && blocks.includes("Fix and resubmit")
        ? blocks
        : undefined;
    });
    expect(shown).toContain("resubmit once the key is fixed");
  }
  // One call, and one more after the key was read again: never a queue retry with the same refused key.
  expect(supplier.requests.length).toBeLessThanOrEqual(4);
  const alerts = h.fake.topLevel(ADMIN);
  const keyAlerts = alerts.filter((m) => m.text.includes("rejects our API key"));
  expect(keyAlerts).toHaveLength(1);
  // One per order, to retry it once the key is fixed.
  const orderAlerts = await h.fake.waitFor(() => {
    const found = h.fake.topLevel(ADMIN).filter((m) => m.text.includes("was not placed"));
    return found.length === 2 ? found : undefined;
  });
  expect(JSON.stringify(orderAlerts.map((m) => m.blocks))).toContain("attention_retry_order");
  for (const m of orderAlerts) expect(JSON.stringify(m.versions)).not.toContain(TEST_KEY);
  const alert = JSON.stringify(keyAlerts[0]?.versions);
  expect(alert).toContain(redactApiKey(TEST_KEY));
  expect(alert).not.toContain(TEST_KEY);
  for (const call of h.fake.calls()) expect(JSON.stringify(call.args)).not.toContain(TEST_KEY);
});
