/**
 * Deterministic job ids: a UUIDv5 of the queue and the entity (an order id, an event id), so that enqueueing
 * the same thing twice inserts one job (pg-boss ignores an id already in the queue).
 */
import { createHash } from "node:crypto";
import type { QueueName } from "./queues.ts";

/** Namespace of Order Desk's name-based UUIDs (random, fixed forever: changing it changes every job id). */
export const ORDER_DESK_NAMESPACE = "3f0d6f2e-8a1b-4c55-9d7e-2b6a51c0e4a9";

/** RFC 9562 UUID version 5 (SHA-1, name-based). */
export function uuidv5(name: string, namespace: string = ORDER_DESK_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ""), "hex");
  if (ns.length !== 16) throw new TypeError(`namespace must be a UUID (got ${JSON.stringify(namespace)})`);
  const bytes = createHash("sha1").update(ns).update(name, "utf8").digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The job id for `parts` (e.g. `jobId("place-order", orderId, attempt)`). Parts are JSON-encoded, so
 * `("a:b", "c")` and `("a", "b:c")` differ.
 */
export function jobId(queue: QueueName, ...parts: Array<string | number>): string {
  return uuidv5(JSON.stringify([queue, ...parts]));
}
