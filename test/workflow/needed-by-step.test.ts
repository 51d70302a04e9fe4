/**
 * The workflow step's `needed_by` input over real HTTP, with the injected clock at Mon 30 Nov 2026: an order whose
 * lead time (an item that takes longer wins) ends after the start date is placed at once and marked at risk (there
 * is no form to warn in); a date in another format fails the step naming the input.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { runWorkflowStep } from "../../tools/fake-slack/index.ts";
import { exampleConfig } from "../helpers/slack-world.ts";
import { onboardingInputs, startWorkflowHarness, type WorkflowHarness } from "./support/harness.ts";

const NOW = new Date("2026-11-30T10:00:00Z");

describe("Place IT order with needed_by", () => {
  let sandbox: SandboxHandle;
  let h: WorkflowHarness;

  beforeAll(async () => {
    const key = generateTestKey();
    sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "workflow-needed-by" });
    const config = exampleConfig();
    config.leadTimes = { default: 5, countries: {}, items: { "MON-27-4K": 8 } };
    h = await startWorkflowHarness({
      supplierUrl: sandbox.url,
      apiKey: key,
      deadlineMs: 60_000,
      config,
      now: () => NOW,
    });
  });

  afterAll(async () => {
    await h?.close();
    await sandbox?.close();
  });

  async function ended(functionExecutionId: string) {
    return h.fake.waitFor(
      () => {
        const e = h.fake.execution(functionExecutionId);
        return e && e.status !== "running" ? e : undefined;
      },
      { timeoutMs: 15_000, what: `execution ${functionExecutionId} to end` },
    );
  }

  it("places an order that would arrive after the start date at once, at risk", async () => {
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: { ...onboardingInputs("ONB-201"), needed_by: "2026-12-07" },
    });
    expect((await ended(step.functionExecutionId)).status).toBe("completed");
    const order = await h.orderFor(step.functionExecutionId);
    // Mon 30 Nov + 8 business days (the monitor's lead time beats the default 5) = Thu 10 Dec.
    expect(order).toMatchObject({
      neededBy: "2026-12-07",
      expectedDelivery: "2026-12-10",
      expectedDeliverySource: "lead_time",
    });
    expect(order?.atRiskSince).toEqual(NOW);
  });

  it("places an order in time without marking it", async () => {
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: { ...onboardingInputs("ONB-202"), needed_by: "2026-12-14" },
    });
    expect((await ended(step.functionExecutionId)).status).toBe("completed");
    const order = await h.orderFor(step.functionExecutionId);
    expect(order).toMatchObject({
      neededBy: "2026-12-14",
      expectedDelivery: "2026-12-10",
      atRiskSince: null,
    });
  });

  it("fails the step for a date in another format, naming the input", async () => {
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: { ...onboardingInputs("ONB-203"), needed_by: "07/12/2026" },
    });
    const execution = await ended(step.functionExecutionId);
    expect(execution.status).toBe("failed");
    expect(JSON.stringify(execution)).toContain(
      "Needed by (needed_by): Needed by must be a date written YYYY-MM-DD",
    );
    expect(await h.orderFor(step.functionExecutionId)).toBeNull();
  });
});
