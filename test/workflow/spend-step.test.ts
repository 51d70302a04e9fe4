/**
 * The Workflow Builder step with prices and shipping countries: an order it places keeps its exact total, and an
 * item that does not ship to the delivery's country fails the step with the modal's message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { runWorkflowStep } from "../../tools/fake-slack/index.ts";
import { exampleConfig } from "../helpers/slack-world.ts";
import { onboardingInputs, startWorkflowHarness, type WorkflowHarness } from "./support/harness.ts";

function config(limitMonitor: boolean) {
  const c = exampleConfig();
  c.currency = "EUR";
  for (const item of c.catalog) {
    item.price = item.itemNumber === "LAP-14-PRO" ? "2149.00" : "10.10";
    if (limitMonitor && item.itemNumber === "MON-27-4K") item.countries = ["US", "CA"];
  }
  c.profiles[0]!.allowWorkflows = true;
  return c;
}

describe.each([true, false])(
  "the workflow step with prices (monitor limited to US and CA: %s)",
  (limited) => {
    let sandbox: SandboxHandle;
    let h: WorkflowHarness;

    beforeAll(async () => {
      const key = generateTestKey();
      sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: `workflow-spend-${limited}` });
      h = await startWorkflowHarness({
        supplierUrl: sandbox.url,
        apiKey: key,
        deadlineMs: 60_000,
        config: config(limited),
      });
    });

    afterAll(async () => {
      await h?.close();
      await sandbox?.close();
    });

    const ended = (id: string) =>
      h.fake.waitFor(
        () => {
          const e = h.fake.execution(id);
          return e && e.status !== "running" ? e : undefined;
        },
        { timeoutMs: 15_000, what: `execution ${id} to end` },
      );

    it(
      limited
        ? "fails the step naming the countries the monitor ships to"
        : "places the kit with its exact total",
      async () => {
        const step = await runWorkflowStep(h.fake, h.requests, {
          callbackId: "place_order",
          inputs: onboardingInputs(limited ? "WFS-1" : "WFS-2"),
        });
        const execution = await ended(step.functionExecutionId);
        if (limited) {
          expect(execution.status).toBe("failed");
          expect(JSON.stringify(execution)).toContain(
            'Monitor 27\\" 4K USB-C (MON-27-4K) is not shipped to Netherlands: it ships only to United States (US) or Canada (CA).',
          );
          expect(await h.orderFor(step.functionExecutionId)).toBeNull();
        } else {
          expect(execution.status).toBe("completed");
          const order = await h.orderFor(step.functionExecutionId);
          expect(order?.currency).toBe("EUR");
          // The starter kit: the laptop and five items at 10.10.
          expect(Number(order?.total)).toBe(2149 + 5 * 10.1);
          expect(order?.linePrices).toEqual(["2149.00", "10.10", "10.10", "10.10", "10.10", "10.10"]);
        }
      },
    );
  },
);
