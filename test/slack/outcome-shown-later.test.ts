/**
 * The supplier refuses an order while Slack refuses to update its message: the order ends rejected in the
 * store, and once Slack answers again the agent sees the rejection (a `show` job shows it later), without the
 * order being sent to the supplier a second time.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { failure, type StubSupplier, startStubSupplier } from "../supplier/support/stub-supplier.ts";
import { type Harness, HELPDESK, startHarness, VALID_FORM } from "./support/harness.ts";

let supplier: StubSupplier;
let h: Harness;

beforeAll(async () => {
  supplier = await startStubSupplier([
    failure(422, "VALIDATION_FAILED", "One or more validation errors occurred.", {
      "Shipping.Contact.PhoneNumber": ["'Shipping.Contact.PhoneNumber' is not reachable by the carrier."],
    }),
  ]);
  h = await startHarness({ supplierUrl: supplier.baseUrl, apiKey: TEST_KEY });
});

afterAll(async () => {
  await h?.close();
  await supplier?.close();
});

it("shows a rejection that Slack could not show at first, once Slack answers again, without placing twice", async () => {
  // The "placing" message is posted; every update of it fails until the faults are cleared.
  h.fake.failNext("chat.update", "internal_error", 1_000);
  const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "LATE-1" });
  const view = await h.agent.openedModal(triggerId);
  const submitted = await h.agent.submit(view.id, { ...VALID_FORM, ticket: "LATE-1", profile: "Acme EU" });
  expect(submitted.outcome.outcome).toBe("closed");

  const rejected = await h.waitForOrder(
    (o) => o.customerReference === "LATE-1" && o.status === "failed",
    "the rejection recorded",
  );
  const shownRejection = () => {
    const m = h.fake.message(rejected.slackChannelId ?? "", rejected.slackMessageTs ?? "");
    return m && JSON.stringify(m.versions.at(-1)?.blocks).includes("not reachable by the carrier")
      ? m
      : undefined;
  };
  // Let the placement's own attempts to show it run out while Slack still fails.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  expect(shownRejection()).toBeUndefined();

  h.fake.clearFaults();
  const message = await h.fake.waitFor(shownRejection, { timeoutMs: 15_000 });
  expect(JSON.stringify(message.versions.at(-1)?.blocks)).toContain("Fix and resubmit");
  expect(supplier.requests).toHaveLength(1);
  expect(h.fake.topLevel(HELPDESK)).toHaveLength(1);
}, 30_000);
