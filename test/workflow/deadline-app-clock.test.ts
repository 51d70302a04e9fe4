/**
 * The step's deadline on one clock, the app's, while the database's runs an hour ahead of it (the demo's world clock
 * is behind the database's by up to a day: tools/world-clock.ts). The deadline is set by the app's clock when the
 * step starts; the order is failed at it, and a placement queued before that moment must never place the order
 * afterwards, and the step's message says how long the supplier was tried. Both read the app's clock only: the
 * queue's own times (a job's creation, the order's row) are the database's, an hour off. After an approval, the
 * deadline starts again, and the time tried is counted from the approval, not from the step's start.
 */
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { placeOrderJobId } from "../../src/orders/submit.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { runWorkflowStep, SlackUser } from "../../tools/fake-slack/index.ts";
import { exampleConfig } from "../helpers/slack-world.ts";
import { onboardingInputs, startWorkflowHarness, type WorkflowHarness } from "./support/harness.ts";

const DEADLINE_MS = 3000;
const HOUR = 3_600_000;

const MANAGER = "U0MANAGER";

let sandbox: SandboxHandle;
let key: string;

beforeAll(async () => {
  key = generateTestKey();
  sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "workflow-deadline-clock" });
});

afterAll(async () => {
  await sandbox?.close();
});

/** The step's execution once it ended. */
const ended = (h: WorkflowHarness, functionExecutionId: string) =>
  h.fake.waitFor(
    () => {
      const e = h.fake.execution(functionExecutionId);
      return e && e.status !== "running" ? e : undefined;
    },
    { timeoutMs: DEADLINE_MS + 8000, what: "the step to end" },
  );

describe("Place IT order: the deadline by the app's clock, an hour behind the database's", () => {
  let h: WorkflowHarness;

  beforeAll(async () => {
    h = await startWorkflowHarness({
      supplierUrl: sandbox.url,
      apiKey: key,
      deadlineMs: DEADLINE_MS,
      now: () => new Date(Date.now() - HOUR),
    });
  });

  afterAll(async () => {
    await h?.close();
  });

  it("says how long the supplier was tried, and a placement queued before the deadline never places the order", async () => {
    sandbox.setFaults({ outage: true });
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: onboardingInputs("ONB-301"),
    });
    const execution = await ended(h, step.functionExecutionId);
    expect(execution.status).toBe("failed");
    expect(execution.error).toMatch(
      /^The supplier could not be reached for 3 seconds, so Order Desk stopped trying: order ONB-301-1 for ONB-301 was cancelled and will NOT be placed later\./,
    );
    const order = await vi.waitFor(
      async () => {
        const o = await h.orderFor(step.functionExecutionId);
        expect(o?.workflow).toMatchObject({
          expiredAt: expect.any(String),
          completion: { outcome: "failed" },
        });
        return o!;
      },
      { timeout: 2000, interval: 50 },
    );
    // The attempt running at the deadline may still be finishing on a busy machine: wait for it to leave `active`.
    const queued = await vi.waitFor(
      async () => {
        const job = await h.jobs.getJob(QUEUES.placeOrder, placeOrderJobId(order.id));
        expect(["cancelled", "completed"]).toContain(job?.state);
        return job!;
      },
      { timeout: 10_000, interval: 50 },
    );

    // The supplier comes back, and the placement queued before the deadline runs once more (a replica had fetched
    // it before it was cancelled), with its own payload and the time the queue says it was created.
    sandbox.setFaults({ outage: false });
    await h.placeOrderHandler({
      id: queued.id,
      queue: QUEUES.placeOrder,
      data: queued.data as { orderId: string },
      attempt: 4,
      maxAttempts: 51,
      isFinalAttempt: false,
      createdAt: queued.createdAt,
      signal: new AbortController().signal,
      logger: pino({ level: "silent" }),
    });
    expect((await sandbox.orders()).filter((o) => o.customerReference === "ONB-301")).toEqual([]);
    expect((await h.orderFor(step.functionExecutionId))?.status).toBe("failed");
    expect(
      h.fake
        .calls("functions.completeSuccess")
        .filter((c) => c.args.function_execution_id === step.functionExecutionId),
    ).toEqual([]);
  });
});

describe("Place IT order: the deadline after an approval", () => {
  let h: WorkflowHarness;
  /** How far the app's clock is behind the real one. */
  let behindMs = 0;

  beforeAll(async () => {
    const config = exampleConfig();
    config.profiles[0]!.approval = {
      approvers: [MANAGER],
      approverGroups: [],
      when: [{ deliveryAt: "Home" }],
      remindAfterHours: 24,
      expireAfterDays: 7,
    };
    h = await startWorkflowHarness({
      supplierUrl: sandbox.url,
      apiKey: key,
      deadlineMs: DEADLINE_MS,
      config,
      now: () => new Date(Date.now() - behindMs),
    });
  });

  afterAll(async () => {
    await h?.close();
  });

  it("counts the time tried from the approval, not from the step's start", async () => {
    // The step started two hours ago, by the app's clock and the database's; the order waited for approval since.
    behindMs = 2 * HOUR;
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: onboardingInputs("ONB-302"),
    });
    const dm = await h.fake.waitFor(
      () =>
        h.fake
          .dm(MANAGER)
          .find(
            (m) => m.threadTs === undefined && JSON.stringify(m.versions.at(-1)?.blocks).includes("ONB-302"),
          ),
      { what: "the approver's DM" },
    );
    const order = await h.orderFor(step.functionExecutionId);
    await h.store.query("UPDATE orders SET created_at = created_at - interval '2 hours' WHERE id = $1", [
      order!.id,
    ]);
    behindMs = 0;
    sandbox.setFaults({ outage: true });
    const manager = new SlackUser({ fake: h.fake, requests: h.requests, userId: MANAGER, timeoutMs: 8000 });
    await manager.clickInMessage({ channel: dm.channel, ts: dm.ts, actionId: "approve_order" });
    const execution = await ended(h, step.functionExecutionId);
    sandbox.setFaults({ outage: false });
    expect(execution.status).toBe("failed");
    expect(execution.error).toMatch(
      /^The supplier could not be reached for 3 seconds, so Order Desk stopped trying/,
    );
  });
});
