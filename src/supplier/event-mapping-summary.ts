/**
 * The mapping in words, for `order-desk events check` and the docs: which path is read for what, and what the
 * supplier's names mean in ours.
 */
import type { EventMapping } from "./event-mapping-schema.ts";

const MAX_PAIRS = 12;

const path = (text: string | null) => (text === null ? "(not read)" : `\`${text}\``);

function pairs(map: Record<string, string>): string {
  const entries = Object.entries(map);
  if (entries.length === 0) return "none";
  if (entries.every(([from, to]) => from === to)) return "our own names";
  const shown = entries.slice(0, MAX_PAIRS).map(([from, to]) => `${from} → ${to}`);
  if (entries.length > MAX_PAIRS) shown.push(`and ${entries.length - MAX_PAIRS} more`);
  return shown.join(", ");
}

const MILESTONE_WORDS: Record<string, string> = {
  statusChanged: "status change",
  shippingUpdated: "shipping update",
};

export function describeMapping(mapping: EventMapping): string {
  const { fields, statusChanged: sc, shippingUpdated: su } = mapping;
  const types = Object.entries(mapping.types).map(
    ([type, milestone]) => `${type} → ${MILESTONE_WORDS[milestone] ?? `status ${milestone}`}`,
  );
  const order = [
    fields.correlationId !== null && `correlationId at ${path(fields.correlationId)}`,
    fields.externalDocumentNumber !== null &&
      `externalDocumentNumber at ${path(fields.externalDocumentNumber)}`,
  ].filter(Boolean);
  return [
    `Event id: ${fields.id === null ? "none read; deliveries are told apart by a hash of the body" : path(fields.id)}`,
    `Type: ${path(fields.type)}; ${types.length > 0 ? types.join(", ") : "no type is mapped"}; any other type is kept and shown as sent`,
    `Happened at: ${path(fields.occurredAt)} (ISO 8601 with a UTC offset, or Unix seconds or milliseconds)`,
    `Order: ${order.join(", else ")}`,
    `Status change: status ${path(sc.status)}, previous status ${path(sc.previousStatus)}, reason ${path(sc.reason)}; statuses: ${pairs(mapping.statuses)}`,
    `Shipping update: parcel ${su.parcelNumber === null ? "1" : path(su.parcelNumber)} of ${su.parcelCount === null ? "1" : path(su.parcelCount)}, ` +
      `carrier ${path(su.carrier)}, tracking number ${path(su.trackingNumber)}, tracking URL ${path(su.trackingUrl)}, ` +
      `estimated delivery ${path(su.estimatedDelivery)}, parcel status ${path(su.status)}, problem ${path(su.exceptionReason)}, ` +
      `lines ${path(su.lines)} (each: item number ${path(su.lineItemNumber)}, quantity ${path(su.lineQuantity)}); ` +
      `parcel statuses: ${pairs(mapping.parcelStatuses)}`,
  ].join("\n");
}
