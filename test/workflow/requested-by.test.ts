/**
 * The step's optional `requested_by` input names the person asking: they become the order's requester, must be
 * allowed by the profile's allowed users like anyone using `/order`, and cannot approve their own order (no DM, a
 * click refused). Over the real wire: `function_executed` events, the fake Slack, the sandbox supplier.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { runWorkflowStep, SlackUser } from "../../tools/fake-slack/index.ts";
import { exampleConfig } from "../helpers/slack-world.ts";
import { NEW_HIRE, onboardingInputs, startWorkflowHarness, type WorkflowHarness } from "./support/harness.ts";

const MANAGER = "U0MANAGER";

function config() {
  const c = exampleConfig();
  const profile = c.profiles[0]!;
  profile.allowedUsers = ["U0AGENT01", MANAGER];
  profile.allowedUserGroups = [];
  profile.approval = {
    approvers: [MANAGER, NEW_HIRE],
    approverGroups: [],
    when: [{ deliveryAt: "Home" }],
    remindAfterHours: 24,
    expireAfterDays: 7,
  };
  return c;
}

describe("a workflow step's requested_by person", () => {
  let sandbox: SandboxHandle;
  let h: WorkflowHarness;

  beforeAll(async () => {
    const key = generateTestKey();
    sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "workflow-requested-by" });
    h = await startWorkflowHarness({
      supplierUrl: sandbox.url,
      apiKey: key,
      deadlineMs: 60_000,
      config: config(),
    });
  });

  afterAll(async () => {
    await h?.close();
    await sandbox?.close();
  });

  const dmAbout = (userId: string, ticket: string) =>
    h.fake
      .dm(userId)
      .find((m) => m.threadTs === undefined && JSON.stringify(m.versions.at(-1)?.blocks).includes(ticket));

  const ended = (id: string) =>
    h.fake.waitFor(
      () => {
        const e = h.fake.execution(id);
        return e && e.status !== "running" ? e : undefined;
      },
      { timeoutMs: 15_000, what: `execution ${id} to end` },
    );

  it("is the requester: an approver who runs the workflow is not asked and cannot approve their own order", async () => {
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: { ...onboardingInputs("WFR-1"), requested_by: MANAGER },
    });
    const otherDm = await h.fake.waitFor(() => dmAbout(NEW_HIRE, "WFR-1"), {
      what: "the other approver's DM",
    });
    const order = await h.orderFor(step.functionExecutionId);
    expect(order).toMatchObject({ requestedBy: MANAGER, source: "workflow", status: "awaiting_approval" });
    expect(dmAbout(MANAGER, "WFR-1")).toBeUndefined();

    const manager = new SlackUser({ fake: h.fake, requests: h.requests, userId: MANAGER, timeoutMs: 8000 });
    await manager.clickInMessage({ channel: otherDm.channel, ts: otherDm.ts, actionId: "approve_order" });
    await h.fake.waitFor(
      () => h.fake.responses().find((r) => JSON.stringify(r.body).includes("You asked for order")),
      { what: "the refusal" },
    );
    expect((await h.orderFor(step.functionExecutionId))?.status).toBe("awaiting_approval");
    expect((await sandbox.orders()).filter((o) => o.customerReference === "WFR-1")).toHaveLength(0);
  });

  it("must be allowed to order with the profile: otherwise the step fails and nothing is stored", async () => {
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: { ...onboardingInputs("WFR-2"), requested_by: NEW_HIRE },
    });
    const execution = await ended(step.functionExecutionId);
    expect(execution.status).toBe("failed");
    expect(await h.orderFor(step.functionExecutionId)).toBeNull();
  });

  it("must be a person: anything else fails the step naming the input", async () => {
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: { ...onboardingInputs("WFR-3"), requested_by: "<!channel>" },
    });
    const execution = await ended(step.functionExecutionId);
    expect(execution.status).toBe("failed");
    expect(JSON.stringify(execution)).toContain("Requested by (requested_by)");
    expect(await h.orderFor(step.functionExecutionId)).toBeNull();
  });
});
