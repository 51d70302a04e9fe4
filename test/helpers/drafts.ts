/** A valid order draft for the example customer file's "Acme US" profile (ticket ABC-123), for tests. */
import { emptyDraft, type OrderDraft } from "../../src/orders/draft.ts";

export function acmeUsDraft(overrides: Partial<OrderDraft> = {}): OrderDraft {
  return {
    ...emptyDraft("Acme US", "ABC-123"),
    firstName: "Nina",
    lastName: "Newhire",
    email: "nina@example.com",
    phone: "+1 415 555 0101",
    deliveryAt: "Office",
    company: "Acme Inc.",
    address1: "1 Market St",
    city: "San Francisco",
    zip: "94105",
    state: "CA",
    country: "us",
    lines: [{ itemNumber: "LAP-14-PRO", quantity: "2", comment: "Asset-tag" }],
    ...overrides,
  };
}
