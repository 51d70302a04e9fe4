/**
 * A complete, valid create-order request (home delivery, two lines), as the supplier's contract spells it. One
 * copy for the tests and the benchmarks, so that the bench sends the order the tests prove is accepted.
 */
import type { CreateOrderRequest } from "../src/supplier/schema.ts";

export function validOrder(overrides: Partial<CreateOrderRequest> = {}): CreateOrderRequest {
  return {
    externalDocumentNumber: "PO-2025-0001",
    type: "New",
    customerReference: "TICKET-123",
    invoice: { id: "INV-ACME-01" },
    consignee: null,
    shipping: {
      deliveryAt: "Home",
      contact: {
        firstName: "Ada",
        lastName: "Lovelace",
        phoneNumber: "+44 20 7946 0958",
        email: "ada@example.com",
      },
      address1: "12 Analytical Row",
      address2: null,
      city: "London",
      zipCode: "N1 9GU",
      stateName: null,
      countryIso2: "GB",
      attention: "Ada Lovelace",
      reference: "HOME-OFFICE",
    },
    orderLines: [
      { itemNumber: "LAPTOP-14", quantity: 1, comments: "Asset tag please" },
      { itemNumber: "DOCK-USB-C", quantity: 1 },
    ],
    ...overrides,
  };
}
