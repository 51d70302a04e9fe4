/**
 * The order, key and envelope every create-order benchmark sends and answers, so ours and the baseline move the
 * same bytes.
 */
import type { CreateOrderRequest } from "../../src/supplier/schema.ts";
import { validOrder } from "../../tools/example-order.ts";

/** A well-formed test-environment key (`<svc>_test_<32 hex>`); only ever sent to local processes. */
export const BENCH_TEST_KEY = "ods_test_0000000000000000000000000000be7c";

/** A typical helpdesk order (home delivery, two lines): the same one the supplier tests place. */
export function benchOrder(externalDocumentNumber: string): CreateOrderRequest {
  return validOrder({ externalDocumentNumber });
}

/** The supplier's success envelope (spec): `data.correlationId` equals `meta.correlationId`. */
export function successEnvelope(correlationId: string, timestamp: string): string {
  return JSON.stringify({
    success: true,
    data: { correlationId },
    error: null,
    meta: { correlationId, timestamp },
  });
}
