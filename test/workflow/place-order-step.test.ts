/**
 * The "Place IT order" workflow step end to end over real HTTP: signed `function_executed` events → Bolt's HTTP
 * receiver → the step's listener → the store and the place-order job → the supplier sandbox → the step completed
 * (or failed) in the fake Slack.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { runWorkflowStep } from "../../tools/fake-slack/index.ts";
import {
  NO_BOT,
  ONBOARDING,
  onboardingInputs,
  startWorkflowHarness,
  TRANSPORTS,
  type WorkflowHarness,
} from "./support/harness.ts";

describe.each(TRANSPORTS)("over %s", (transport) => {
  let sandbox: SandboxHandle;
  let h: WorkflowHarness;

  beforeAll(async () => {
    const key = generateTestKey();
    sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: `workflow-step-${transport}` });
    h = await startWorkflowHarness({ transport, supplierUrl: sandbox.url, apiKey: key, deadlineMs: 60_000 });
  });

  afterAll(async () => {
    await h?.close();
    await sandbox?.close();
  });

  async function ended(functionExecutionId: string) {
    try {
      return await h.fake.waitFor(
        () => {
          const e = h.fake.execution(functionExecutionId);
          return e && e.status !== "running" ? e : undefined;
        },
        { timeoutMs: 15_000, what: `execution ${functionExecutionId} to end` },
      );
    } catch (error) {
      // Say where the order got stuck (e.g. the supplier call kept failing).
      const order = await h.orderFor(functionExecutionId);
      throw new Error(
        `${(error as Error).message}; order: ${JSON.stringify({ status: order?.status, failure: order?.failure })}`,
      );
    }
  }

  async function supplierOrders(ticket: string) {
    return (await sandbox.orders()).filter((o) => o.customerReference === ticket);
  }

  describe("Place IT order (workflow step)", () => {
    it("places the order, posts its message in the chosen channel, and completes with the outputs", async () => {
      const step = await runWorkflowStep(h.fake, h.requests, {
        callbackId: "place_order",
        inputs: onboardingInputs("ONB-101"),
      });
      expect(step.response.status).toBe(200);

      const execution = await ended(step.functionExecutionId);
      expect(execution.status).toBe("completed");

      const [placed] = await supplierOrders("ONB-101");
      const order = await h.orderFor(step.functionExecutionId);
      expect(order?.source).toBe("workflow");
      expect(order?.request.shipping.deliveryAt).toBe("Home");
      expect(order?.request.orderLines.map((l) => l.itemNumber)).toEqual([
        "LAP-14-PRO",
        "MON-27-4K",
        "DOCK-USBC",
        "KB-WL-US",
        "MOUSE-WL",
        "HS-ANC",
      ]);
      expect(order?.slackChannelId).toBe(ONBOARDING);
      const ts = order?.slackMessageTs ?? "";
      expect(h.fake.message(ONBOARDING, ts)).toBeDefined();
      expect(execution.outputs).toEqual({
        correlation_id: placed?.correlationId,
        external_document_number: "ONB-101-1",
        order_message_link: `https://order-desk-demo.slack.com/archives/${ONBOARDING}/p${ts.replace(".", "")}`,
      });
      expect(h.fake.calls("functions.completeSuccess")).toHaveLength(1);
    });

    it("fails with a message naming every bad input and how to fix it, and stores nothing", async () => {
      const step = await runWorkflowStep(h.fake, h.requests, {
        callbackId: "place_order",
        inputs: {
          ...onboardingInputs("ONB-102"),
          email: "nina-at-example",
          country: "XX",
          delivery_at: "Garden",
          items: "LAP-14-PRO x2, NOPE-9",
        },
      });
      const execution = await ended(step.functionExecutionId);
      expect(execution.status).toBe("failed");
      const error = execution.error ?? "";
      expect(error).toMatch(/^Place IT order cannot place this order\. Fix these inputs: /);
      expect(error).toMatch(/\(delivery_at\): type exactly Office or Home/);
      expect(error).toMatch(/\(email\): .*e-mail/i);
      expect(error).toMatch(/\(country\): /);
      expect(error).toMatch(/\(items\): .*NOPE-9 is not in the agreed catalog/);
      expect(error).toMatch(/run the workflow again\.$/);
      expect(await h.orderFor(step.functionExecutionId)).toBeNull();
      expect(await supplierOrders("ONB-102")).toEqual([]);
    });

    it("fails at once when Order Desk is not in the chosen channel, saying how to add it", async () => {
      const step = await runWorkflowStep(h.fake, h.requests, {
        callbackId: "place_order",
        inputs: { ...onboardingInputs("ONB-103"), channel: NO_BOT },
      });
      const execution = await ended(step.functionExecutionId);
      expect(execution.status).toBe("failed");
      expect(execution.error).toMatch(
        /\(channel\): Order Desk is not a member of #helpdesk-eu; add it with \/invite/,
      );
      expect(await h.orderFor(step.functionExecutionId)).toBeNull();
    });

    it("refuses a profile that does not allow workflows, saying how to allow them, before checking any input", async () => {
      const lookups = () =>
        h.fake.calls("conversations.info").filter((c) => c.args.channel === "C0HELPDESK").length;
      const before = lookups();
      const step = await runWorkflowStep(h.fake, h.requests, {
        callbackId: "place_order",
        // Acme US (example customer file) has no allowWorkflows; its allowedUsers do not apply to a workflow.
        inputs: { ...onboardingInputs("ONB-106"), profile: "Acme US", channel: "C0HELPDESK", email: "bad" },
      });
      const execution = await ended(step.functionExecutionId);
      expect(execution.status).toBe("failed");
      expect(execution.error).toBe(
        'Place IT order is not allowed here: the ordering profile "Acme US" does not allow Workflow Builder orders. ' +
          "An Order Desk admin can allow them by setting allowWorkflows: true on that profile in order-desk.config.yml " +
          "and restarting Order Desk (see docs/configuration.md); until then, order with /order.",
      );
      expect(h.fake.calls("functions.completeError").at(-1)?.args).toMatchObject({
        function_execution_id: step.functionExecutionId,
      });
      expect(await h.orderFor(step.functionExecutionId)).toBeNull();
      expect(await supplierOrders("ONB-106")).toEqual([]);
      expect(lookups()).toBe(before);

      // The same channel without a profile input resolves to two profiles: still nothing ordered with Acme US.
      const unnamed = await runWorkflowStep(h.fake, h.requests, {
        callbackId: "place_order",
        inputs: { ...onboardingInputs("ONB-107"), channel: "C0HELPDESK" },
      });
      expect((await ended(unnamed.functionExecutionId)).error).toMatch(
        /\(profile\): channel C0HELPDESK has several/,
      );
    });

    it("places one order when Slack re-delivers the same function_executed event", async () => {
      const step = await runWorkflowStep(h.fake, h.requests, {
        callbackId: "place_order",
        inputs: onboardingInputs("ONB-104"),
      });
      // Re-delivered while the first delivery is still being handled, and again after the step completed.
      const again = await step.redeliver(1);
      expect(again.status).toBe(200);
      const execution = await ended(step.functionExecutionId);
      expect(execution.status).toBe("completed");
      expect((await step.redeliver(2)).status).toBe(200);

      await new Promise((r) => setTimeout(r, 300));
      expect(await supplierOrders("ONB-104")).toHaveLength(1);
      const { rows } = await h.store.query(
        "SELECT count(*)::int AS n FROM orders WHERE customer_reference = $1",
        ["ONB-104"],
      );
      expect(rows[0]?.n).toBe(1);
      const completions = h.fake
        .calls("functions.completeSuccess")
        .filter((c) => c.args.function_execution_id === step.functionExecutionId);
      expect(completions).toHaveLength(1);
    });

    it("tells Slack again on the job's retry when completing the step failed, without placing the order twice", async () => {
      h.fake.failNext("functions.completeSuccess", { httpStatus: 503 });
      const step = await runWorkflowStep(h.fake, h.requests, {
        callbackId: "place_order",
        inputs: onboardingInputs("ONB-105"),
      });
      const execution = await ended(step.functionExecutionId);
      expect(execution.status).toBe("completed");
      expect(execution.outputs).toMatchObject({ external_document_number: "ONB-105-1" });
      const calls = h.fake
        .calls("functions.completeSuccess")
        .filter((c) => c.args.function_execution_id === step.functionExecutionId);
      expect(calls).toHaveLength(2);
      expect(await supplierOrders("ONB-105")).toHaveLength(1);
    });
  });
});
