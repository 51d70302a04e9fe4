/**
 * The step's `recipient` input, and a workflow order whose channel stops accepting the bot after the step started.
 * A workflow order records the bot as its requester, so the DM fallback of `/order` (which would DM the bot itself)
 * does not apply: the admins are told instead, and the message follows once the bot is back in the channel.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { insertEventIfNew } from "../../src/store/repositories/events.ts";
import { getOrder } from "../../src/store/repositories/orders.ts";
import { runWorkflowStep } from "../../tools/fake-slack/index.ts";
import {
  NEW_HIRE,
  ONBOARDING,
  onboardingInputs,
  startWorkflowHarness,
  type WorkflowHarness,
} from "./support/harness.ts";

const HELPDESK = "C0HELPDESK";
const ADMIN = "C0ITADMIN";
let sandbox: SandboxHandle;
let h: WorkflowHarness;

beforeAll(async () => {
  const key = generateTestKey();
  sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "workflow-recipient" });
  h = await startWorkflowHarness({ supplierUrl: sandbox.url, apiKey: key, deadlineMs: 60_000 });
});

afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

function ended(functionExecutionId: string) {
  return h.fake.waitFor(
    () => {
      const e = h.fake.execution(functionExecutionId);
      return e && e.status !== "running" ? e : undefined;
    },
    { timeoutMs: 15_000, what: `execution ${functionExecutionId} to end` },
  );
}

const blocksText = (blocks: unknown) => JSON.stringify(blocks);

it("mentions the recipient in the order message: for <@recipient>", async () => {
  const step = await runWorkflowStep(h.fake, h.requests, {
    callbackId: "place_order",
    inputs: onboardingInputs("ONB-201"),
  });
  expect((await ended(step.functionExecutionId)).status).toBe("completed");
  const order = await h.orderFor(step.functionExecutionId);
  const message = h.fake.message(ONBOARDING, order?.slackMessageTs ?? "");
  const first = blocksText(message?.versions[0]?.blocks);
  expect(first).toContain(`Placing order for *ONB-201* … for <@${NEW_HIRE}>`);
  expect(blocksText(message?.versions.at(-1)?.blocks)).toContain(`Order for *ONB-201* for <@${NEW_HIRE}>`);
  // The bot is the recorded requester; the message says a workflow placed it rather than "requested by" the bot.
  expect(first).toContain("placed by a workflow");
  expect(first).not.toContain(`requested by <@${h.fake.botUserId}>`);
});

it("leaves the recipient out when the step has none", async () => {
  const { recipient: _none, ...inputs } = onboardingInputs("ONB-202");
  const step = await runWorkflowStep(h.fake, h.requests, { callbackId: "place_order", inputs });
  expect((await ended(step.functionExecutionId)).status).toBe("completed");
  const order = await h.orderFor(step.functionExecutionId);
  const shown = blocksText(h.fake.message(ONBOARDING, order?.slackMessageTs ?? "")?.versions.at(-1)?.blocks);
  expect(shown).toContain("Order for *ONB-202* · Acme EU");
  expect(shown).not.toContain("<@U");
});

it("does not DM the bot when the channel refuses a workflow order's message: it alerts the admins, and posts it once the bot is back", async () => {
  // The bot is in the channel when the step checks it, and removed right after (before the order is posted).
  const removed = h.fake.waitFor(() => {
    if (!h.fake.calls("conversations.info").some((c) => c.args.channel === HELPDESK)) return false;
    h.fake.setMember(HELPDESK, false);
    return true;
  });
  const step = await runWorkflowStep(h.fake, h.requests, {
    callbackId: "place_order",
    inputs: { ...onboardingInputs("ONB-203"), channel: HELPDESK, profile: "Acme EU" },
  });
  await removed;
  const execution = await ended(step.functionExecutionId);
  // Placed by the supplier: the step completes (the workflow is never told "failed" for an order that exists).
  expect(execution.status, execution.error).toBe("completed");
  const order = await h.orderFor(step.functionExecutionId);
  expect(order?.correlationId).toBeTruthy();
  expect(order?.slackMessageTs).toBeNull();

  // Never a DM to the bot (the recorded requester) or to anyone else.
  const posts = h.fake.calls("chat.postMessage");
  expect(posts.filter((c) => c.args.channel === h.fake.botUserId)).toEqual([]);
  expect(posts.filter((c) => /^[UWD]/.test(String(c.args.channel)))).toEqual([]);

  // The admins are told, once, what happened and how to fix it.
  const alerts = await h.fake.waitFor(() => {
    const found = h.fake.topLevel(ADMIN).filter((m) => m.text.includes(order?.externalDocumentNumber ?? "?"));
    return found.length > 0 ? found : undefined;
  });
  expect(alerts).toHaveLength(1);
  const alert = blocksText(alerts[0]?.blocks);
  expect(alert).toContain(`<#${HELPDESK}>`);
  expect(alert).toContain("/invite @Order Desk");
  expect(alert).toContain(`<@${NEW_HIRE}>`);

  // Back in the channel: the order's next supplier update posts the message there, then the update in its thread.
  h.fake.setMember(HELPDESK, true);
  const event = {
    id: `evt_${randomUUID()}`,
    type: "order.status_changed",
    occurredAt: new Date().toISOString(),
    correlationId: order?.correlationId ?? "",
    data: { status: "picked" },
  };
  await insertEventIfNew(h.store, { ...event, payload: event });
  const outcome = await h.postUpdates.postOrderUpdates(order?.id ?? "");
  expect(outcome.posted).toBe(1);
  const shown = await getOrder(h.store, order?.id ?? "");
  expect(shown?.slackChannelId).toBe(HELPDESK);
  const message = h.fake.message(HELPDESK, shown?.slackMessageTs ?? "");
  expect(blocksText(message?.versions.at(-1)?.blocks)).toContain(`for <@${NEW_HIRE}>`);
  expect(h.fake.thread(HELPDESK, shown?.slackMessageTs ?? "").map((m) => m.text)).toEqual([
    `${shown?.customerReference} · order ${shown?.externalDocumentNumber}: Status: Picked`,
  ]);
});
