/**
 * App Home follows the order: when supplier events change an order (status, tracking), the post-update worker
 * re-publishes the requester's Home, without waiting for them to open the tab again.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertEventIfNew } from "../../src/store/repositories/events.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import { AGENT, type Harness, HELPDESK, startHarness, TRANSPORTS, VALID_FORM } from "./support/harness.ts";

describe.each(TRANSPORTS)("App Home over %s", (transport) => {
  let supplier: StubSupplier;
  let h: Harness;
  const CORRELATION_ID = "7d1f3e0a-2b6c-4c1e-9a55-3f6b8e2d9c01";
  const TRACKING_URL = "https://track.example.com/JD014600003SE";

  beforeAll(async () => {
    supplier = await startStubSupplier([success(CORRELATION_ID)]);
    h = await startHarness({ transport, supplierUrl: supplier.baseUrl, apiKey: TEST_KEY });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  async function supplierEvent(type: string, occurredAt: Date, data: object): Promise<void> {
    const event = {
      id: `evt_${randomUUID()}`,
      type,
      occurredAt: occurredAt.toISOString(),
      correlationId: CORRELATION_ID,
      data,
    };
    await insertEventIfNew(h.store, { ...event, payload: event });
  }

  it("re-publishes the requester's Home with the new status and the tracking link after supplier events", async () => {
    const view = await h.agent.openedModal(
      (await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "HOME-1" })).triggerId,
    );
    await h.agent.submit(view.id, { ...VALID_FORM, ticket: "HOME-1", profile: "Acme EU" });
    const placed = await h.waitForOrder(
      (o) => o.customerReference === "HOME-1" && o.status === "received" && o.slackMessageTs !== null,
      "HOME-1 placed and its message recorded",
    );
    // Nobody opened the Home tab: nothing was published for the agent yet.
    expect(h.fake.homeView(AGENT)).toBeUndefined();

    const now = Date.now();
    await supplierEvent("order.status_changed", new Date(now - 2000), { status: "shipped" });
    await supplierEvent("order.shipping_updated", new Date(now - 1000), {
      parcel: { number: 1, of: 1 },
      carrier: "DHL",
      trackingNumber: "JD014600003SE",
      trackingUrl: TRACKING_URL,
      estimatedDelivery: new Date(now + 2 * 86_400_000).toISOString().slice(0, 10),
      status: "shipped",
      lines: [{ itemNumber: "LAP-14-PRO", quantity: 1 }],
    });
    const outcome = await h.postUpdates.postOrderUpdates(placed.id);
    expect(outcome).toMatchObject({ applied: 2, posted: 2 });

    const home = await h.fake.waitFor(
      () => {
        const v = h.fake.homeView(AGENT);
        return v && JSON.stringify(v.definition.blocks).includes(TRACKING_URL) ? v : undefined;
      },
      { what: "the agent's Home with the tracking link" },
    );
    const shown = JSON.stringify(home.definition.blocks);
    expect(shown).toContain("HOME-1");
    expect(shown).toMatch(/Shipped/);
    expect(shown).toContain(`<${TRACKING_URL}|DHL JD014600003SE>`);
    // Two events in one run: one refresh (debounced per user).
    await new Promise((r) => setTimeout(r, 200));
    expect(h.fake.calls("views.publish").filter((c) => c.args.user_id === AGENT)).toHaveLength(1);
  });

  it("keeps posting the updates when the Home cannot be published", async () => {
    h.fake.failNext("views.publish", "internal_error");
    const order = await h.waitForOrder((o) => o.customerReference === "HOME-1", "HOME-1");
    await supplierEvent("order.status_changed", new Date(), { status: "delivered" });
    const outcome = await h.postUpdates.postOrderUpdates(order.id);
    expect(outcome).toMatchObject({ applied: 1, posted: 1 });
    await h.fake.waitFor(() =>
      h.fake.calls("views.publish").some((c) => c.response?.ok === false) ? true : undefined,
    );
    expect(h.fake.thread(HELPDESK, order.slackMessageTs ?? "").map((m) => m.text)).toContain(
      `HOME-1 · order ${order.externalDocumentNumber}: Status: Delivered`,
    );
  });
});
