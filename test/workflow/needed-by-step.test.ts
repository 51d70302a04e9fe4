/**
 * The workflow step's `needed_by` input over real HTTP, with the injected clock on a Monday ahead of the real one: an order whose
 * lead time (an item that takes longer wins) ends after the start date is placed at once and marked at risk (there
 * is no form to warn in) and, once placed, says so once as a slipped estimate is (a thread reply, the requester's
 * DM, "Needs attention"); a date in another format fails the step naming the input. The at-risk order's fulfilment
 * is silent in the sandbox, so no estimate of the supplier's (on the real clock) moves its dates.
 *
 * The Monday is the next one after tomorrow, not a fixed date: the queue runs the step's deadline job on the
 * database's (real) clock at the app's deadline, so an app clock behind the real one would have the deadline pass
 * at once. The example's customer file has no holidays, so the business days are Monday to Friday.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { runWorkflowStep } from "../../tools/fake-slack/index.ts";
import { exampleConfig } from "../helpers/slack-world.ts";
import { onboardingInputs, startWorkflowHarness, type WorkflowHarness } from "./support/harness.ts";

const DAY = 86_400_000;
const NOW = (() => {
  const d = new Date(Date.now() + DAY);
  d.setUTCHours(10, 0, 0, 0);
  while (d.getUTCDay() !== 1) d.setTime(d.getTime() + DAY);
  return d;
})();
const later = (days: number) => new Date(NOW.getTime() + days * DAY);
/** YYYY-MM-DD, `days` after the Monday. */
const iso = (days: number) => later(days).toISOString().slice(0, 10);
/** As Order Desk writes a date: "Thu 10 Dec". */
const shown = (days: number) =>
  later(days)
    .toLocaleDateString("en-GB", { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" })
    .replace(",", "");
const MANAGER = "U0MANAGER";

describe("Place IT order with needed_by", () => {
  let sandbox: SandboxHandle;
  let h: WorkflowHarness;

  beforeAll(async () => {
    const key = generateTestKey();
    sandbox = await startSandbox({
      apiKeys: [key],
      speed: 1000,
      seed: "workflow-needed-by",
      stall: [{ match: "ONB-201", silent: true }],
    });
    const config = exampleConfig();
    config.leadTimes = { default: 5, countries: {}, items: { "MON-27-4K": 8 } };
    // The manager runs the onboarding workflow: the order's requester, told by DM.
    config.profiles[0]!.allowedUsers = [MANAGER];
    config.profiles[0]!.allowedUserGroups = [];
    h = await startWorkflowHarness({
      supplierUrl: sandbox.url,
      apiKey: key,
      deadlineMs: 60_000,
      config,
      now: () => NOW,
      workPostUpdates: true,
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
      inputs: { ...onboardingInputs("ONB-201"), needed_by: iso(7), requested_by: MANAGER },
    });
    expect((await ended(step.functionExecutionId)).status).toBe("completed");
    const order = await h.orderFor(step.functionExecutionId);
    // Monday + 8 business days (the monitor's lead time beats the default 5) = the Thursday after next.
    expect(order).toMatchObject({
      neededBy: iso(7),
      expectedDelivery: iso(10),
      expectedDeliverySource: "lead_time",
    });
    expect(order?.atRiskSince).toEqual(NOW);

    let placed = order!;
    for (const deadline = Date.now() + 15_000; !placed.slackMessageTs; ) {
      if (Date.now() > deadline) throw new Error("timed out waiting for the order's message");
      await new Promise((r) => setTimeout(r, 25));
      placed = (await h.orderFor(step.functionExecutionId)) ?? placed;
    }
    const channel = placed.slackChannelId!;
    const atRisk = () =>
      h.fake.thread(channel, placed.slackMessageTs!).filter((m) => m.text.includes("At risk"));
    await h.fake.waitFor(() => atRisk().length > 0, { timeoutMs: 15_000, what: "the at-risk reply" });
    const dm = await h.fake.waitFor(
      () => h.fake.dm(MANAGER).find((m) => m.text.includes(placed.externalDocumentNumber)),
      { timeoutMs: 15_000, what: "the requester's DM" },
    );
    expect(dm.text).toContain(`At risk: expected ${shown(10)}, needed by ${shown(7)}`);
    expect(atRisk().map((m) => m.text)).toEqual([
      expect.stringContaining(`At risk: expected ${shown(10)}, needed by ${shown(7)}`),
    ]);
    const items = await h.store.query(
      "SELECT count(*)::int AS n FROM attention_items WHERE kind = 'at_risk_order' AND subject = $1 AND resolved_at IS NULL",
      [placed.id],
    );
    expect(items.rows[0]?.n).toBe(1);
  });

  it("places an order in time without marking it", async () => {
    const step = await runWorkflowStep(h.fake, h.requests, {
      callbackId: "place_order",
      inputs: { ...onboardingInputs("ONB-202"), needed_by: iso(14) },
    });
    expect((await ended(step.functionExecutionId)).status).toBe("completed");
    const order = await h.orderFor(step.functionExecutionId);
    expect(order).toMatchObject({
      neededBy: iso(14),
      expectedDelivery: iso(10),
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
