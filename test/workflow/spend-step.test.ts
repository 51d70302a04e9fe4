/**
 * The Workflow Builder step with prices, shipping countries and budgets, once per transport (signed events or Socket
 * Mode envelopes): an order it places keeps its exact total; an item that does not ship to the delivery's country,
 * or an order that a `refuse` budget turns away, fails the step with the modal's message (the budget's with the
 * amount left).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { runWorkflowStep } from "../../tools/fake-slack/index.ts";
import { exampleConfig } from "../helpers/slack-world.ts";
import {
  onboardingInputs,
  startWorkflowHarness,
  TRANSPORTS,
  type Transport,
  type WorkflowHarness,
} from "./support/harness.ts";

type Case = "prices" | "countries" | "budget";

function config(which: Case) {
  const c = exampleConfig();
  c.currency = "EUR";
  for (const item of c.catalog) {
    item.price = item.itemNumber === "LAP-14-PRO" ? "2149.00" : "10.10";
    if (which === "countries" && item.itemNumber === "MON-27-4K") item.countries = ["US", "CA"];
  }
  c.profiles[0]!.allowWorkflows = true;
  // The starter kit (€2,199.50) does not fit in what is left of this month's €2,000.
  if (which === "budget") c.profiles[0]!.budget = { monthly: "2000", onExceed: "refuse" };
  return c;
}

const CASES = TRANSPORTS.flatMap((transport) =>
  (["prices", "countries", "budget"] as const).map((which): [Transport, Case] => [transport, which]),
);

describe.each(CASES)("the workflow step with prices over %s (%s)", (transport, which) => {
  const limited = which === "countries";
  let sandbox: SandboxHandle;
  let h: WorkflowHarness;

  beforeAll(async () => {
    const key = generateTestKey();
    sandbox = await startSandbox({
      apiKeys: [key],
      speed: 1000,
      seed: `workflow-spend-${transport}-${which}`,
    });
    h = await startWorkflowHarness({
      transport,
      supplierUrl: sandbox.url,
      apiKey: key,
      deadlineMs: 60_000,
      config: config(which),
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
    {
      prices: "places the kit with its exact total",
      countries: "fails the step naming the countries the monitor ships to",
      budget: "fails the step with the modal's words for a refusing budget, the amount left",
    }[which],
    async () => {
      const step = await runWorkflowStep(h.fake, h.requests, {
        callbackId: "place_order",
        inputs: onboardingInputs(`WFS-${["prices", "countries", "budget"].indexOf(which) + 1}`),
      });
      const execution = await ended(step.functionExecutionId);
      if (which === "budget") {
        expect(execution.status).toBe("failed");
        expect(JSON.stringify(execution)).toContain(
          "This order (€2,199.50) would take Acme EU's spending this month over its budget of €2,000.00: €2,000.00 is left. Order less, or ask an admin.",
        );
        expect(await h.orderFor(step.functionExecutionId)).toBeNull();
      } else if (limited) {
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
});
