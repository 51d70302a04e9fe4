import { describe, expect, it } from "vitest";
import {
  isLocalState,
  isTerminal,
  ORDER_STATES,
  RANKED_ORDER_STATES,
  statusRank,
} from "../../src/orders/model/status.ts";
import { SUPPLIER_ORDER_STATES } from "../../src/supplier/events.ts";

describe("an order's status model", () => {
  it("ranks states so that an older status never overwrites a newer one", () => {
    expect(ORDER_STATES).toEqual(
      expect.arrayContaining([...SUPPLIER_ORDER_STATES, "queued", "placing", "failed"]),
    );
    const order = [
      "queued",
      "placing",
      "failed",
      "received",
      "validated",
      "in_fulfilment",
      "picked",
      "packed",
    ] as const;
    for (let i = 1; i < order.length; i++)
      expect(statusRank(order[i]!)).toBeGreaterThan(statusRank(order[i - 1]!));
    expect(statusRank("partially_shipped")).toBeLessThan(statusRank("shipped"));
    expect(statusRank("delivered")).toBeGreaterThan(statusRank("shipped"));
  });

  it("hands the store every status lowest rank first, and knows our own and the final ones", () => {
    expect([...RANKED_ORDER_STATES].sort()).toEqual([...ORDER_STATES].sort());
    for (let i = 1; i < RANKED_ORDER_STATES.length; i++) {
      expect(statusRank(RANKED_ORDER_STATES[i]!)).toBeGreaterThan(statusRank(RANKED_ORDER_STATES[i - 1]!));
    }
    expect(ORDER_STATES.filter(isLocalState)).toEqual(["queued", "placing", "failed"]);
    expect(ORDER_STATES.filter(isTerminal)).toEqual(["delivered", "cancelled"]);
  });
});
