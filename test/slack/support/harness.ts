/**
 * Order Desk's Slack side wired for real, over loopback (test/helpers/slack-world.ts): HTTP or Socket Mode, the
 * fake Slack Web API, a supplier (the sandbox or a scripted stub), a store and pg-boss jobs running the real
 * `place-order` handler. Tests drive it as a person would (SlackUser) and read what Slack shows.
 */

import type { Order } from "../../../src/orders/model/order.ts";
import { getOrder } from "../../../src/store/repositories/orders.ts";
import { EXAMPLE_DELIVERY } from "../../../tools/example-form.ts";
import { SlackUser, type TypedValue } from "../../../tools/fake-slack/index.ts";
import {
  NO_BOT,
  type SlackWorld,
  type SlackWorldOptions,
  startSlackWorld,
  type Transport,
} from "../../helpers/slack-world.ts";
import { TEST_KEY } from "../../supplier/support/fixtures.ts";
import { type Reply, type StubSupplier, startStubSupplier } from "../../supplier/support/stub-supplier.ts";

export { exampleConfig, NO_BOT, TRANSPORTS, type Transport } from "../../helpers/slack-world.ts";

export const BOT_TOKEN = "xoxb-odtest";
export const SIGNING_SECRET = "test-signing-secret-0123456789abcdef";
export const AGENT = "U0AGENT01";
export const MANAGER = "U0MANAGER";
export const OUTSIDER = "U0OUTSIDER";
/** An approver through the user group `IT_LEADS` (approval tests). */
export const BOSS = "U0BOSS01";
export const IT_LEADS = "S0ITLEADS";
export const HELPDESK = "C0HELPDESK";
export const ADMIN = "C0ITADMIN";

export interface Harness extends SlackWorld {
  agent: SlackUser;
  user(userId: string): SlackUser;
  order(id: string): Promise<Order>;
  /** Waits for the order with this idempotency key / latest order of a user to reach a status. */
  waitForOrder(predicate: (order: Order) => boolean, what: string, timeoutMs?: number): Promise<Order>;
}

export interface HarnessOptions {
  /** HTTP (signed requests) or Socket Mode (envelopes over the fake's WebSocket); default HTTP. */
  transport?: Transport;
  supplierUrl: string;
  apiKey: string;
  /** Faster retries of the place-order job (seconds). */
  retryDelaySeconds?: number;
  retryLimit?: number;
  /** The notifier's Prometheus counters. */
  metrics?: SlackWorldOptions["metrics"];
  /** The Slack app's logger (default silent). */
  logger?: SlackWorldOptions["logger"];
  /** The customer file (default the example's). */
  config?: SlackWorldOptions["config"];
  /** The app's clock. */
  now?: SlackWorldOptions["now"];
  approvalExtras?: SlackWorldOptions["approvalExtras"];
  approvalMetrics?: SlackWorldOptions["approvalMetrics"];
  customize?: SlackWorldOptions["customize"];
  workPostUpdates?: boolean;
  budgetThreadWaitMs?: SlackWorldOptions["budgetThreadWaitMs"];
  unsentAlerts?: SlackWorldOptions["unsentAlerts"];
  /** The bound on deciding a click before its ack (default the app's). */
  clickDecisionMs?: number;
  /** More people in the workspace (beside the agent, the manager and the outsider). */
  users?: SlackWorldOptions["users"];
  /** More channels (beside #helpdesk, #it-admin and the one without the bot). */
  channels?: SlackWorldOptions["channels"];
  /** Scopes the fake Slack grants the bot token (default: the manifest's). */
  scopes?: SlackWorldOptions["scopes"];
  /** Per Slack Web API call (default 5 s). */
  slackTimeoutMs?: number;
  /** Retries of the approval jobs (default 1 s apart, 3 times). */
  approvalPolicy?: SlackWorldOptions["approvalPolicy"];
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const world = await startSlackWorld({
    ...(options.transport && { transport: options.transport }),
    botToken: BOT_TOKEN,
    signingSecret: SIGNING_SECRET,
    users: [
      { id: AGENT, name: "alice", realName: "Alice Agent" },
      { id: MANAGER, name: "mark", realName: "Mark Manager" },
      { id: OUTSIDER, name: "oscar", realName: "Oscar Outsider" },
      { id: BOSS, name: "bea", realName: "Bea Boss" },
      ...(options.users ?? []),
    ],
    channels: [
      { id: HELPDESK, name: "helpdesk" },
      { id: ADMIN, name: "it-admin" },
      { id: NO_BOT, name: "helpdesk-eu", botIsMember: false },
      ...(options.channels ?? []),
    ],
    usergroups: [
      { id: "S0HELPDESK", handle: "helpdesk", users: [MANAGER] },
      { id: IT_LEADS, handle: "it-leads", users: [BOSS] },
    ],
    supplierUrl: options.supplierUrl,
    apiKey: options.apiKey,
    supplierRetry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
    placeOrderPolicy: {
      retryDelaySeconds: options.retryDelaySeconds ?? 1,
      retryLimit: options.retryLimit ?? 3,
    },
    ...(options.metrics && { metrics: options.metrics }),
    ...(options.logger && { logger: options.logger }),
    ...(options.config && { config: options.config }),
    ...(options.now && { now: options.now }),
    ...(options.approvalExtras && { approvalExtras: options.approvalExtras }),
    ...(options.approvalMetrics && { approvalMetrics: options.approvalMetrics }),
    ...(options.customize && { customize: options.customize }),
    ...(options.workPostUpdates && { workPostUpdates: true }),
    ...(options.clickDecisionMs !== undefined && { clickDecisionMs: options.clickDecisionMs }),
    ...(options.budgetThreadWaitMs !== undefined && { budgetThreadWaitMs: options.budgetThreadWaitMs }),
    ...(options.unsentAlerts && { unsentAlerts: options.unsentAlerts }),
    ...(options.scopes && { scopes: options.scopes }),
    ...(options.slackTimeoutMs !== undefined && { slackTimeoutMs: options.slackTimeoutMs }),
    ...(options.approvalPolicy && { approvalPolicy: options.approvalPolicy }),
  });
  const { fake, store, requests } = world;
  const user = (userId: string) => new SlackUser({ fake, requests, userId, timeoutMs: 8000 });

  return {
    ...world,
    agent: user(AGENT),
    user,
    async order(id) {
      const order = await getOrder(store, id);
      if (!order) throw new Error(`no order ${id}`);
      return order;
    },
    async waitForOrder(predicate, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { rows } = await store.query("SELECT id FROM orders ORDER BY created_at DESC");
        for (const row of rows) {
          const order = await getOrder(store, row.id as string);
          if (order && predicate(order)) return order;
        }
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** A complete, valid delivery as typed into the modal (keys: block ids). */
export const VALID_FORM = { ticket: "ABC-123", ...EXAMPLE_DELIVERY } as const;

/** `/order <ticket>` typed by the agent in #helpdesk, and the modal it opened. */
export async function openOrderModal(h: Harness, ticket: string) {
  const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
  return h.agent.openedModal(triggerId);
}

/** The agent submits the order form for `ticket`: a valid delivery for "Acme EU", plus `changes`. */
export function submitOrderForm(
  h: Harness,
  viewId: string,
  ticket: string,
  changes: Record<string, TypedValue> = {},
) {
  return h.agent.submit(viewId, { ...VALID_FORM, ticket, profile: "Acme EU", ...changes });
}

/** An option of a menu in the form, as the view shows it. */
export interface MenuOption {
  value: string;
  text: { text: string };
  description?: { text: string };
}

/** The options of the menu `actionId` under the form's lines (Add bundle…, Remove line…). */
export function lineMenuOptions(blocks: unknown, actionId: string): MenuOption[] {
  const actions = (
    blocks as { block_id?: string; elements?: { action_id?: string; options?: MenuOption[] }[] }[]
  ).find((b) => b.block_id === "line_actions");
  return actions?.elements?.find((e) => e.action_id === actionId)?.options ?? [];
}

/** The harness in front of a scripted supplier; `close` stops both. */
export interface StubbedHarness extends Harness {
  supplier: StubSupplier;
}

/**
 * Starts a scripted supplier answering `replies` in turn (the last one repeats) and the harness placing orders on
 * it with the test key.
 */
export async function startOnStubSupplier(
  replies: Reply[],
  options: Omit<HarnessOptions, "supplierUrl" | "apiKey"> = {},
): Promise<StubbedHarness> {
  const supplier = await startStubSupplier(replies);
  let h: Harness;
  try {
    h = await startHarness({ ...options, supplierUrl: supplier.baseUrl, apiKey: TEST_KEY });
  } catch (error) {
    await supplier.close();
    throw error;
  }
  return {
    ...h,
    supplier,
    async close() {
      try {
        await h.close();
      } finally {
        await supplier.close();
      }
    },
  };
}
