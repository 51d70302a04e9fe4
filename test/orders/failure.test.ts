import { describe, expect, it } from "vitest";
import {
  keyRefused,
  permanentFailureOf,
  rejectionOf,
  retriesExhaustedOf,
  retryingOf,
} from "../../src/orders/failure-of.ts";
import {
  mayHaveBeenPlaced,
  neverReachedSupplier,
  type OrderFailure,
  parseOrderFailure,
} from "../../src/orders/model/failure.ts";
import { SecretNotFoundError } from "../../src/secrets/errors.ts";
import {
  DuplicateOrderError,
  KeyEnvironmentMismatchError,
  LocalValidationError,
  ProtocolError,
  SupplierUnavailableError,
  SupplierValidationError,
} from "../../src/supplier/errors.ts";

const details = { "Shipping.City": ["'Shipping.City' is unknown."] };
const unavailable = new SupplierUnavailableError("supplier down", { reason: "timeout", attempts: 3 });

describe("OrderFailure", () => {
  it("records each way a placement fails as its own variant, and reads back what it wrote", () => {
    const written: [OrderFailure, Partial<OrderFailure>][] = [
      [
        rejectionOf(new SupplierValidationError("refused", details)),
        { kind: "rejected", reason: "rejected", code: "VALIDATION_FAILED", details },
      ],
      [
        rejectionOf(new LocalValidationError(details)),
        { kind: "rejected", reason: "rejected", code: "VALIDATION_FAILED", details },
      ],
      [
        rejectionOf(new DuplicateOrderError("PO-1")),
        { kind: "rejected", reason: "duplicate_number", code: "DUPLICATE_ORDER" },
      ],
      [
        retryingOf(unavailable, true, 2),
        { kind: "retrying", reason: "retrying", code: "SUPPLIER_UNAVAILABLE", maybePlaced: true, attempt: 2 },
      ],
      [
        retriesExhaustedOf(unavailable, false),
        { kind: "failed", reason: "retries_exhausted", maybePlaced: false, retriesExhausted: true },
      ],
      [keyRefused(false), { kind: "failed", reason: "key_refused", code: "UNAUTHORIZED" }],
      [
        permanentFailureOf(new KeyEnvironmentMismatchError("sk_…1234", "test", "live")),
        { kind: "failed", reason: "key_unavailable", code: "KEY_ENVIRONMENT_MISMATCH" },
      ],
      [
        permanentFailureOf(new SecretNotFoundError("no such secret", "order-desk/key")),
        { kind: "failed", reason: "key_unavailable", code: "SECRET_NOT_FOUND" },
      ],
      [
        permanentFailureOf(new ProtocolError("not the envelope")),
        { kind: "failed", reason: "unexpected", code: "PROTOCOL_ERROR", message: "not the envelope" },
      ],
      [permanentFailureOf("boom"), { kind: "failed", reason: "unexpected", message: "boom" }],
    ];
    for (const [failure, expected] of written) {
      expect(failure).toMatchObject(expected);
      expect(parseOrderFailure(JSON.parse(JSON.stringify(failure)))).toEqual(failure);
    }
    expect(keyRefused(false)).not.toHaveProperty("maybePlaced");
    expect(keyRefused(true)).toMatchObject({ maybePlaced: true });
  });

  it("says which failures may have reached the supplier and which prove it never did", () => {
    expect(mayHaveBeenPlaced(retryingOf(unavailable, true, 1))).toBe(true);
    expect(mayHaveBeenPlaced(retryingOf(unavailable, false, 1))).toBe(false);
    expect(mayHaveBeenPlaced(null)).toBe(false);
    expect(neverReachedSupplier(rejectionOf(new SupplierValidationError("refused", details)))).toBe(true);
    expect(neverReachedSupplier(rejectionOf(new DuplicateOrderError("PO-1")))).toBe(false);
    expect(neverReachedSupplier(retriesExhaustedOf(unavailable, false))).toBe(false);
    expect(neverReachedSupplier(null)).toBe(false);
  });

  it("reads no failure as null, and anything unreadable as an unexpected failure instead of throwing", () => {
    expect(parseOrderFailure(null)).toBeNull();
    expect(parseOrderFailure("a string")).toEqual({ kind: "failed", reason: "unexpected" });
    expect(parseOrderFailure([1, 2])).toEqual({ kind: "failed", reason: "unexpected" });
    expect(parseOrderFailure({ reason: "rejected" })).toMatchObject({ kind: "failed", reason: "unexpected" });
    expect(
      parseOrderFailure({ kind: "rejected", code: "VALIDATION_FAILED", details: { City: "no" } }),
    ).toEqual({
      kind: "rejected",
      reason: "rejected",
      code: "VALIDATION_FAILED",
    });
  });
});
