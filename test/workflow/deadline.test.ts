/**
 * The step's deadline: while the supplier is unavailable the placement is retried, and at the deadline the step
 * fails with a clear message and the order is never placed afterwards, not by a queued retry, not when the
 * supplier comes back. (Its own file: the deadline is an option of the app, short here.)
 */
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { placeOrderJobId } from "../../src/orders/submit.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { runWorkflowStep } from "../../tools/fake-slack/index.ts";
import { onboardingInputs, startWorkflowHarness, type WorkflowHarness } from "./support/harness.ts";

const DEADLINE_MS = 2500;

let sandbox: SandboxHandle;
let h: WorkflowHarness;

beforeAll(async () => {
  const key = generateTestKey();
  sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "workflow-deadline" });
  h = await startWorkflowHarness({ supplierUrl: sandbox.url, apiKey: key, deadlineMs: DEADLINE_MS });
});

afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

describe("Place IT order: supplier unavailable until the deadline", () => {
  it("retries, then fails the step at the deadline, cancels the placement, and never places the order later", async () => {
    sandbox.setFaults({ outage: true });
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: onboardingInputs("ONB-201"),
    });
    const startedAt = Date.now();

    const execution = await h.fake.waitFor(
      () => {
        const e = h.fake.execution(step.functionExecutionId);
        return e && e.status !== "running" ? e : undefined;
      },
      { timeoutMs: DEADLINE_MS + 8000, what: "the step to end" },
    );
    expect(execution.status).toBe("failed");
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
    expect(execution.error).toMatch(
      /^The supplier could not be reached for \d seconds, so Order Desk stopped trying: order ONB-201-1 for ONB-201 was cancelled and will NOT be placed later\./,
    );

    // Recorded once Slack has taken the answer (just after the fake marks the execution failed).
    const order = await vi.waitFor(
      async () => {
        const o = await h.orderFor(step.functionExecutionId);
        expect(o?.workflow).toMatchObject({
          expiredAt: expect.any(String),
          completion: { outcome: "failed" },
        });
        return o;
      },
      { timeout: 2000, interval: 50 },
    );
    expect(order?.status).toBe("failed");
    expect(order?.failure).toMatchObject({ kind: "failed", code: "WORKFLOW_DEADLINE" });
    // It was retried meanwhile, and the channel's message says what happened.
    const attempts = h.fake.calls("chat.update").filter((c) => c.args.ts === order?.slackMessageTs);
    expect(attempts.length).toBeGreaterThanOrEqual(1);
    const message = h.fake.message(order?.slackChannelId ?? "", order?.slackMessageTs ?? "");
    expect(JSON.stringify(message?.versions.at(-1))).toMatch(/will NOT be placed later/);
    // Nothing is left to run: the queued retry was cancelled (or the attempt running at the deadline ended it).
    // The attempt running at the deadline may still be finishing on a busy machine: wait for it to leave `active`.
    await vi.waitFor(
      async () => {
        const job = await h.jobs.getJob(QUEUES.placeOrder, placeOrderJobId(order?.id ?? ""));
        expect(["cancelled", "completed"]).toContain(job?.state);
      },
      { timeout: 10_000, interval: 50 },
    );

    // The supplier comes back; a retry queued before the deadline still runs (say a replica had fetched it).
    sandbox.setFaults({ outage: false });
    await h.placeOrderHandler({
      id: placeOrderJobId(order?.id ?? ""),
      queue: QUEUES.placeOrder,
      data: { orderId: order?.id ?? "" },
      attempt: 4,
      maxAttempts: 51,
      isFinalAttempt: false,
      createdAt: order?.createdAt ?? new Date(0),
      signal: new AbortController().signal,
      logger: pino({ level: "silent" }),
    });
    await new Promise((r) => setTimeout(r, 1500)); // longer than the retry delay
    expect((await sandbox.orders()).filter((o) => o.customerReference === "ONB-201")).toEqual([]);
    expect((await h.orderFor(step.functionExecutionId))?.status).toBe("failed");
    expect(h.fake.calls("functions.completeError")).toHaveLength(1);
    expect(h.fake.calls("functions.completeSuccess")).toHaveLength(0);
  });

  it("cuts short an attempt still waiting for the supplier at the deadline, and says the supplier may have it", async () => {
    sandbox.setFaults({ outage: false, latencyMs: DEADLINE_MS + 1000 });
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: onboardingInputs("ONB-202"),
    });
    const execution = await h.fake.waitFor(
      () => {
        const e = h.fake.execution(step.functionExecutionId);
        return e && e.status !== "running" ? e : undefined;
      },
      { timeoutMs: DEADLINE_MS + 8000, what: "the step to end" },
    );
    sandbox.setFaults({ latencyMs: 0 });
    expect(execution.status).toBe("failed");
    expect(execution.error).toMatch(/will NOT be placed later\./);
    expect(execution.error).toMatch(
      /may have received it anyway: ask them whether they have order number ONB-202-1/,
    );
    const order = await h.orderFor(step.functionExecutionId);
    expect(order?.failure).toMatchObject({ code: "WORKFLOW_DEADLINE", maybePlaced: true });
    // The attempt itself answered the workflow and ended its job; no retry is left.
    await vi.waitFor(
      async () =>
        expect((await h.jobs.getJob(QUEUES.placeOrder, placeOrderJobId(order?.id ?? "")))?.state).toBe(
          "completed",
        ),
      { timeout: 2000, interval: 50 },
    );
    expect(
      h.fake
        .calls("functions.completeSuccess")
        .filter((c) => c.args.function_execution_id === step.functionExecutionId),
    ).toEqual([]);
  });
});
