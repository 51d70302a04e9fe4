import { describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { checkDraft } from "../../src/orders/check.ts";
import {
  describeWorkflowErrors,
  draftFromWorkflowInputs,
  parseItems,
} from "../../src/slack/workflow-inputs.ts";
import { exampleConfig } from "../slack/support/harness.ts";

const customer = createCustomer(exampleConfig());

const inputs = {
  ticket_id: "ONB-42",
  first_name: "Nina",
  last_name: "Newhire",
  email: "nina@example.com",
  phone: "+31 20 555 0101",
  delivery_at: "home",
  address1: "Keizersgracht 1",
  city: "Amsterdam",
  zip: "1015 CJ",
  country: "nl",
  items: "Remote starter kit",
  channel: "C0ONBOARD",
};

describe("workflow inputs → draft", () => {
  it("reads items as item numbers with quantities, bundles, or both", () => {
    expect(parseItems("LAP-14-PRO x2, MOUSE-WL; 3x DOCK-USBC\nHS-ANC*2", customer).lines).toEqual([
      { itemNumber: "LAP-14-PRO", quantity: "2", comment: "" },
      { itemNumber: "MOUSE-WL", quantity: "1", comment: "" },
      { itemNumber: "DOCK-USBC", quantity: "3", comment: "" },
      { itemNumber: "HS-ANC", quantity: "2", comment: "" },
    ]);
    expect(parseItems("desk refresh, PHONE-STD", customer).lines.map((l) => l.itemNumber)).toEqual([
      "MON-27-4K",
      "DOCK-USBC",
      "PHONE-STD",
    ]);
    expect(parseItems("a big laptop", customer).problems[0]).toMatch(/neither an item number nor a bundle/);
  });

  it("builds a draft that passes the modal's rules, picking the channel's only profile", () => {
    const result = draftFromWorkflowInputs(inputs, customer);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.draft).toMatchObject({ profile: "Acme EU", deliveryAt: "Home", country: "NL" });
    expect(result.draft.lines).toHaveLength(6);
    expect(checkDraft(result.draft, customer).ok).toBe(true);
  });

  it("names each bad input by its title and name, with how to fix it", () => {
    const ambiguous = draftFromWorkflowInputs(
      { ...inputs, channel: "C0HELPDESK", delivery_at: "desk" },
      customer,
    );
    expect(ambiguous.ok).toBe(false);
    if (!ambiguous.ok) {
      expect(ambiguous.problems).toEqual([
        expect.stringMatching(
          /^Ordering profile \(profile\): channel C0HELPDESK has several profiles \(Acme EU, Acme US\)/,
        ),
        "Deliver to (delivery_at): type exactly Office or Home.",
      ]);
    }
    const draft = draftFromWorkflowInputs(
      { ...inputs, email: "nina", items: "LAP-14-PRO x0, NOPE-1" },
      customer,
    );
    expect(draft.ok).toBe(true);
    if (!draft.ok) return;
    const checked = checkDraft(draft.draft, customer);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(describeWorkflowErrors(checked.errors)).toEqual([
      "Items (items): Line 1 quantity: Enter at least 1.",
      "Items (items): Line 2 item: NOPE-1 is not in the agreed catalog; choose an item from the list.",
      "Recipient e-mail (email): Must be a valid e-mail address.",
    ]);
  });
});
