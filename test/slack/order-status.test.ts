/**
 * `/order status TICKET-123`, `/order status ORDER-NUMBER` and `/order help` over signed slash commands: the
 * answer is ephemeral (the command's response_url) and shows only what people allowed to order in the channel
 * may see.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Order } from "../../src/orders/model/order.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { insertEventIfNew } from "../../src/store/repositories/events.ts";
import { type Harness, HELPDESK, OUTSIDER, startHarness, VALID_FORM } from "./support/harness.ts";

let sandbox: SandboxHandle;
let h: Harness;
let first: Order;
let second: Order;

async function placeFor(ticket: string, item: { value: string; text: string }): Promise<Order> {
  const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
  const view = await h.agent.openedModal(triggerId);
  const done = await h.agent.submit(view.id, {
    ...VALID_FORM,
    ticket,
    profile: "Acme EU",
    line_0_item: item,
  });
  expect(done.outcome.outcome).toBe("closed");
  return h.waitForOrder(
    (o) =>
      o.customerReference === ticket &&
      o.request.orderLines[0]?.itemNumber === item.value &&
      o.correlationId !== null &&
      o.slackMessageTs !== null,
    `the order of ${item.value} for ${ticket} placed`,
  );
}

beforeAll(async () => {
  const key = generateTestKey();
  sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "order-status" });
  h = await startHarness({ supplierUrl: sandbox.url, apiKey: key });
  first = await placeFor("ST-1", { value: "LAP-14-PRO", text: 'Laptop 14" Pro (LAP-14-PRO)' });
  second = await placeFor("ST-1", { value: "MON-27-4K", text: 'Monitor 27" 4K USB-C (MON-27-4K)' });
  // The first order has shipped: its tracking is known.
  const shipped = {
    id: `evt_${randomUUID()}`,
    type: "order.shipping_updated",
    occurredAt: new Date().toISOString(),
    correlationId: first.correlationId ?? "",
    data: {
      parcel: { number: 1, of: 1 },
      carrier: "DHL Express",
      trackingNumber: "JD0146",
      trackingUrl: "https://track.example.com/JD0146",
      estimatedDelivery: "2031-01-10",
      status: "shipped",
      lines: [{ itemNumber: "LAP-14-PRO", quantity: 1 }],
    },
  };
  const status = {
    id: `evt_${randomUUID()}`,
    type: "order.status_changed",
    occurredAt: new Date().toISOString(),
    correlationId: first.correlationId ?? "",
    data: { status: "shipped" },
  };
  for (const event of [shipped, status]) await insertEventIfNew(h.store, { ...event, payload: event });
  await h.postUpdates.postOrderUpdates(first.id);
});

afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

async function ask(text: string, user = h.agent) {
  const before = h.fake.responses().length;
  const { response } = await user.runCommand({ channel: HELPDESK, command: "/order", text });
  expect(response.status).toBe(200);
  const answer = await h.fake.waitFor(() => h.fake.responses()[before], {
    what: `the answer to /order ${text}`,
  });
  return answer.body as { response_type: string; text: string; blocks?: unknown[] };
}

describe("/order status", () => {
  it("lists a ticket's orders (typed in any case) with number, status, items, tracking and a link to each message", async () => {
    const answer = await ask("status st-1");
    expect(answer.response_type).toBe("ephemeral");
    const shown = JSON.stringify(answer.blocks);
    // Newest first, each number linked to its order message.
    for (const order of [second, first]) {
      const link = h.fake.workspace.permalink(HELPDESK, order.slackMessageTs ?? "");
      expect(shown).toContain(`<${link}|${order.externalDocumentNumber}>`);
    }
    expect(shown.indexOf(second.externalDocumentNumber)).toBeLessThan(
      shown.indexOf(first.externalDocumentNumber),
    );
    expect(shown).toContain('1 × Laptop 14\\" Pro (32 GB, 1 TB)');
    expect(shown).toContain('1 × Monitor 27\\" 4K USB-C');
    expect(shown).toContain("*Tracking:* <https://track.example.com/JD0146|DHL Express JD0146>");
    expect(shown).toContain("Shipped");
    // Notifications and screen readers get the gist.
    expect(answer.text).toContain("ST-1: 2 orders");
    expect(answer.text).toContain(`${first.externalDocumentNumber} shipped`);
  });

  it("shows one order by its order number", async () => {
    const answer = await ask(`status ${second.externalDocumentNumber}`);
    const shown = JSON.stringify(answer.blocks);
    expect(shown).toContain(second.externalDocumentNumber);
    expect(shown).not.toContain(`|${first.externalDocumentNumber}>`);
  });

  it("says so when nothing matches, and how to ask", async () => {
    const answer = await ask("status NOPE-404");
    expect(answer.text).toContain("No order for *NOPE-404*");
    expect(answer.text).toContain("`/order help`");
  });

  it("asks which ticket when none is given, with the command's forms", async () => {
    const answer = await ask("status");
    expect(answer.text).toContain("Which ticket or order? For example `/order status ABC-123`.");
    expect(answer.text).toContain("*/order status ORDER-NUMBER*");
  });

  it("shows nothing of the orders to someone who may not order in the channel", async () => {
    const answer = await ask("status ST-1", h.user(OUTSIDER));
    expect(answer.text).toContain(`Only people allowed to order in <#${HELPDESK}> can look up its orders`);
    expect(JSON.stringify(answer)).not.toContain(first.externalDocumentNumber);
  });
});

describe("/order help", () => {
  it("lists the forms of the command, privately, without opening a form", async () => {
    const { response, triggerId } = await h.agent.runCommand({
      channel: HELPDESK,
      command: "/order",
      text: "help",
    });
    expect(response.status).toBe(200);
    const body = response.body as { response_type: string; text: string };
    expect(body.response_type).toBe("ephemeral");
    for (const form of ["*/order*", "*/order TICKET-123*", "*/order status TICKET-123*", "*/order help*"]) {
      expect(body.text).toContain(form);
    }
    expect(h.fake.calls("views.open").filter((c) => c.args.trigger_id === triggerId)).toEqual([]);
  });
});
