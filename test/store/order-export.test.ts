/**
 * The export's keyset pages over a month's orders, on both stores: every order of the month once, in order,
 * across page boundaries, with orders taken in the same microsecond and in different microseconds of the same
 * millisecond (which a JavaScript Date cannot tell apart), and none from the months around it.
 */
import { describe, expect, it } from "vitest";
import { monthOf } from "../../src/orders/export/index.ts";
import { ordersTakenBetween } from "../../src/store/repositories/order-export.ts";
import { openTestStore, TEST_BACKENDS } from "../helpers/db.ts";

const REQUEST = {
  externalDocumentNumber: "X",
  invoice: { id: "INV-1" },
  shipping: {},
  orderLines: [{ itemNumber: "LAP-14-PRO", quantity: 1 }],
};

describe.each(TEST_BACKENDS)("a month's orders in pages on %s", (backend) => {
  it("yields each order of the month once, oldest first, whatever the page size", async () => {
    const store = await openTestStore(backend);
    try {
      const taken = [
        "2026-10-31T23:59:59.999999Z", // the month before
        "2026-11-01T00:00:00Z",
        "2026-11-01T00:00:00Z", // the same instant
        "2026-11-01T00:00:00Z",
        "2026-11-05T12:00:00.123001Z", // one millisecond, three microseconds
        "2026-11-05T12:00:00.123002Z",
        "2026-11-05T12:00:00.123003Z",
        "2026-11-30T23:59:59.999999Z",
        "2026-12-01T00:00:00Z", // the month after
      ];
      for (const [i, at] of taken.entries()) {
        await store.query(
          `INSERT INTO orders (id, profile, external_document_number, requested_by, source, status, request, created_at)
           VALUES ($1, 'Acme EU', $2, 'U0AGENT01', 'command', 'queued', $3, $4)`,
          [`order-${String(i).padStart(2, "0")}`, `N-${i}`, JSON.stringify(REQUEST), at],
        );
      }
      const month = monthOf(2026, 10);
      for (const pageSize of [1, 2, 3, 500]) {
        const seen: string[] = [];
        for await (const order of ordersTakenBetween(store, month, pageSize))
          seen.push(order.externalDocumentNumber);
        expect(seen, `page size ${pageSize}`).toEqual(["N-1", "N-2", "N-3", "N-4", "N-5", "N-6", "N-7"]);
      }
    } finally {
      await store.close();
    }
  });

  it("lists the correlation ids admins attached to an order after its own", async () => {
    const store = await openTestStore(backend);
    try {
      const insert = (id: string, correlationId: string | null) =>
        store.query(
          `INSERT INTO orders (id, profile, external_document_number, requested_by, source, status, request, created_at,
                               correlation_id)
           VALUES ($1, 'Acme EU', $1, 'U0AGENT01', 'command', 'queued', $2, '2026-11-02T00:00:00Z', $3)`,
          [id, JSON.stringify(REQUEST), correlationId],
        );
      await insert("own-only", "corr-own-1");
      await insert("with-aliases", "corr-own-2");
      await insert("none", null);
      // As Attach to order… records them (order_aliases, migration 010).
      for (const alias of ["corr-attached-a", "corr-attached-b"])
        await store.query(
          "INSERT INTO order_aliases (correlation_id, order_id) VALUES ($1, 'with-aliases')",
          [alias],
        );
      const ids: Record<string, string | null> = {};
      for await (const order of ordersTakenBetween(store, monthOf(2026, 10)))
        ids[order.externalDocumentNumber] = order.correlationId;
      expect(ids["own-only"]).toBe("corr-own-1");
      expect(ids.none).toBeNull();
      expect(ids["with-aliases"]?.split(" ").sort()).toEqual([
        "corr-attached-a",
        "corr-attached-b",
        "corr-own-2",
      ]);
      expect(ids["with-aliases"]?.startsWith("corr-own-2 ")).toBe(true);
    } finally {
      await store.close();
    }
  });
});
