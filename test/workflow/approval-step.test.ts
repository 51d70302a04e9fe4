/**
 * A workflow step's order that needs approval: the step stays open while it waits; approved, it is placed and the
 * step completes with its outputs, the wait not counted against the placement deadline; rejected or expired, the
 * step fails with `functions.completeError` naming why, and nothing reaches the supplier.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { approvalJobId } from "../../src/orders/approvals/request.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { runWorkflowStep, SlackUser } from "../../tools/fake-slack/index.ts";
import { exampleConfig } from "../helpers/slack-world.ts";
import { runWhenDue } from "../slack/support/approvals.ts";
import { onboardingInputs, startWorkflowHarness, type WorkflowHarness } from "./support/harness.ts";

const MANAGER = "U0MANAGER";
const HOUR = 3_600_000;

function config() {
  const c = exampleConfig();
  c.profiles[0]!.approval = {
    approvers: [MANAGER],
    approverGroups: [],
    when: [{ deliveryAt: "Home" }],
    remindAfterHours: 24,
    expireAfterDays: 7,
  };
  return c;
}

describe("workflow step orders that need approval", () => {
  let sandbox: SandboxHandle;
  let h: WorkflowHarness;
  let behindMs = 0;

  beforeAll(async () => {
    const key = generateTestKey();
    sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "workflow-approvals" });
    h = await startWorkflowHarness({
      supplierUrl: sandbox.url,
      apiKey: key,
      deadlineMs: 60_000,
      config: config(),
      now: () => new Date(Date.now() - behindMs),
    });
  });

  afterAll(async () => {
    await h?.close();
    await sandbox?.close();
  });

  const manager = () =>
    new SlackUser({ fake: h.fake, requests: h.requests, userId: MANAGER, timeoutMs: 8000 });

  async function waiting(ticket: string) {
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: onboardingInputs(ticket),
    });
    const dm = await h.fake.waitFor(
      () =>
        h.fake
          .dm(MANAGER)
          .find(
            (m) => m.threadTs === undefined && JSON.stringify(m.versions.at(-1)?.blocks).includes(ticket),
          ),
      { what: `the approver's DM for ${ticket}` },
    );
    const order = await h.orderFor(step.functionExecutionId);
    expect(order?.status).toBe("awaiting_approval");
    expect(h.fake.execution(step.functionExecutionId)?.status).toBe("running");
    return { step, dm, order: order! };
  }

  const ended = (id: string) =>
    h.fake.waitFor(
      () => {
        const e = h.fake.execution(id);
        return e && e.status !== "running" ? e : undefined;
      },
      { timeoutMs: 15_000, what: `execution ${id} to end` },
    );

  const placedAtSupplier = async (ticket: string) =>
    (await sandbox.orders()).filter((o) => o.customerReference === ticket).length;

  it("stays open while waiting (however long: the wait is not counted against the deadline), completes once approved and placed", async () => {
    // Accepted "an hour ago": without the approval's restart of the deadline, its 60 s would be long gone.
    behindMs = HOUR;
    const { step, dm } = await waiting("WFA-1");
    behindMs = 0;
    await manager().clickInMessage({ channel: dm.channel, ts: dm.ts, actionId: "approve_order" });
    const execution = await ended(step.functionExecutionId);
    expect(execution.status).toBe("completed");
    expect(await placedAtSupplier("WFA-1")).toBe(1);
  });

  it("fails the step naming the approver's reason when rejected", async () => {
    const { step, dm } = await waiting("WFA-2");
    const click = await manager().clickInMessage({
      channel: dm.channel,
      ts: dm.ts,
      actionId: "reject_order",
    });
    const modal = await manager().openedModal(click.triggerId);
    await manager().submit(modal.id, { reject_reason: "Use the office kit" });
    const execution = await ended(step.functionExecutionId);
    expect(execution.status).toBe("failed");
    expect(JSON.stringify(execution)).toContain("rejected by an approver: Use the office kit");
    expect(await placedAtSupplier("WFA-2")).toBe(0);
  });

  it("fails the step when the approval request expires", async () => {
    behindMs = 7 * 24 * HOUR - 3000;
    const { step, order } = await waiting("WFA-3");
    behindMs = 0;
    // Due a few seconds after the DM went out, by the app's clock (a run before that is put off).
    await runWhenDue(h, QUEUES.approvalExpiry, approvalJobId(QUEUES.approvalExpiry, order.id));
    const execution = await ended(step.functionExecutionId);
    expect(execution.status).toBe("failed");
    expect(JSON.stringify(execution)).toContain("approval request expired");
    expect(await placedAtSupplier("WFA-3")).toBe(0);
  });
});
