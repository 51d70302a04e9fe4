/**
 * The export's money columns on both stores: orders stored with their exact totals and unit prices come out with
 * line totals that add up to each order's total to the cent, and order totals that add up to what was stored;
 * without prices there are no money columns at all.
 */
import { describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { parseCustomerConfig } from "../../src/config/customer.ts";
import { exportCsv, monthOf } from "../../src/orders/export/index.ts";
import { Decimal } from "../../src/orders/money.ts";
import { priceOrder, storedPricing } from "../../src/orders/pricing.ts";
import { ordersTakenBetween } from "../../src/store/repositories/order-export.ts";
import { insertOrder } from "../../src/store/repositories/orders.ts";
import { parseCsv } from "../helpers/csv.ts";
import { openTestStore, TEST_BACKENDS } from "../helpers/db.ts";

const customer = createCustomer(
  parseCustomerConfig(`
adminChannel: C0ITADMIN
currency: EUR
catalog:
  - { itemNumber: A, name: A, price: 0.10 }
  - { itemNumber: B, name: B, price: 1249.99 }
  - { itemNumber: C, name: C, price: 0.05 }
profiles:
  - { name: Acme, channels: [C0HELPDESK], invoice: { id: INV-1 }, allowedUsers: [U0AGENT01] }
`),
);

/** Deterministic lines: item and quantity from the order's index. */
function linesOf(n: number) {
  const items = ["A", "B", "C"];
  return Array.from({ length: 1 + (n % 4) }, (_, i) => ({
    itemNumber: items[(n + i) % 3] as string,
    quantity: 1 + ((n * 7 + i * 13) % 997),
  }));
}

async function csvOf(store: Awaited<ReturnType<typeof openTestStore>>, prices: boolean): Promise<string[][]> {
  let text = "";
  for await (const line of exportCsv(ordersTakenBetween(store, monthOf(2026, 10), 7), {
    personalData: false,
    prices,
  }))
    text += line;
  return parseCsv(text);
}

describe.each(TEST_BACKENDS)("the export's money columns on %s", (backend) => {
  it("adds line totals up to each order total, and order totals up to what was stored", async () => {
    const store = await openTestStore(backend);
    try {
      let stored = Decimal.ZERO;
      for (let n = 0; n < 40; n++) {
        const orderLines = linesOf(n);
        const pricing = storedPricing(priceOrder(orderLines, customer));
        if (!pricing) throw new Error("priced catalog");
        stored = stored.plus(Decimal.parse(pricing.total));
        await insertOrder(store, {
          id: `money-${n}`,
          profile: "Acme",
          externalDocumentNumber: `M-${n}`,
          requestedBy: "U0AGENT01",
          source: "command",
          request: { externalDocumentNumber: `M-${n}`, shipping: {}, orderLines } as never,
          ...pricing,
        });
      }
      await store.query("UPDATE orders SET created_at = '2026-11-10T00:00:00Z'");
      const [header, ...rows] = await csvOf(store, true);
      const col = (name: string) => (header as string[]).indexOf(name);
      expect(header).toEqual(
        expect.arrayContaining(["unit_prices", "line_totals", "order_total", "currency"]),
      );
      expect(rows).toHaveLength(40);
      let exported = Decimal.ZERO;
      for (const row of rows) {
        const lineTotals = (row[col("line_totals")] as string).split("; ").map((t) => Decimal.parse(t));
        const units = (row[col("unit_prices")] as string).split("; ");
        expect(units).toHaveLength(lineTotals.length);
        const total = Decimal.parse(row[col("order_total")] as string);
        expect(Decimal.sum(lineTotals).equals(total), row[0]).toBe(true);
        expect(row[col("order_total")]).toMatch(/^\d+\.\d{2}$/);
        expect(row[col("currency")]).toBe("EUR");
        exported = exported.plus(total);
      }
      expect(exported.toFixed(2)).toBe(stored.toFixed(2));

      const [plainHeader] = await csvOf(store, false);
      expect(plainHeader).not.toContain("order_total");
    } finally {
      await store.close();
    }
  });
});
