/**
 * The export's columns: what finance needs to match the supplier's confirmations and invoices, which carry
 * `externalDocumentNumber` and `correlationId` (spec, "What the service does", point 6). The recipient's e-mail,
 * phone and address are personal data and appear only when the customer file says `export: { personalData: true }`.
 */
import type { CsvValue } from "./csv.ts";

/** One order as the export reads it (the store's query fills it; see src/store/repositories/order-export.ts). */
export interface ExportOrder {
  externalDocumentNumber: string;
  correlationId: string | null;
  ticket: string | null;
  profile: string;
  /** Slack user id of whoever asked. */
  requestedBy: string;
  status: string;
  createdAt: Date;
  /** When the supplier accepted it (its first event, or the placement when no event came yet). */
  placedAt: Date | null;
  deliveredAt: Date | null;
  /** `request.shipping` as stored (read defensively: a row is data, not a promise). */
  shipping: unknown;
  /** `request.orderLines` as stored. */
  orderLines: unknown;
  /** `orders.tracking` as stored. */
  tracking: unknown;
  /** YYYY-MM-DD; null when nobody gave one. */
  neededBy?: string | null;
  expectedDelivery?: string | null;
  /** Days delivered after the needed-by date (0 in time); null when not delivered or no needed-by date. */
  lateDays?: number | null;
}

const BASE_HEADER = [
  "order_number",
  "correlation_id",
  "ticket",
  "profile",
  "requester",
  "recipient_name",
  "items",
  "status",
  "ordered_at",
  "placed_at",
  "delivered_at",
  "tracking_numbers",
  "needed_by",
  "expected_delivery",
  "late_days",
] as const;
const PERSONAL_HEADER = ["recipient_email", "recipient_phone", "recipient_address"] as const;

export function exportHeader(personalData: boolean): string[] {
  return [...BASE_HEADER, ...(personalData ? PERSONAL_HEADER : [])];
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

const iso = (date: Date | null) => (date ? date.toISOString() : "");

/** "LAP-14-PRO x1; MON-27-4K x2": lines with a quantity, in the request's order. */
export function itemsCell(orderLines: unknown): string {
  if (!Array.isArray(orderLines)) return "";
  return orderLines
    .map(record)
    .filter((line) => typeof line.quantity === "number" && line.quantity > 0 && text(line.itemNumber) !== "")
    .map((line) => `${text(line.itemNumber)} x${line.quantity as number}`)
    .join("; ");
}

/** "DHL 00340434161234567890; UPS 1Z999…": each parcel's carrier and tracking number, by parcel number. */
export function trackingCell(tracking: unknown): string {
  const doc = record(tracking);
  const parcels = Object.entries(record(doc.parcels))
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, parcel]) => record(parcel));
  const list = parcels.length > 0 ? parcels : doc.latest ? [record(doc.latest)] : [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const parcel of list) {
    const number = text(parcel.trackingNumber);
    if (number === "" || seen.has(number)) continue;
    seen.add(number);
    out.push([text(parcel.carrier), number].filter(Boolean).join(" "));
  }
  return out.join("; ");
}

function addressCell(shipping: Record<string, unknown>): string {
  return [
    text(shipping.companyName),
    text(shipping.address1),
    text(shipping.address2),
    [text(shipping.zipCode), text(shipping.city)].filter(Boolean).join(" "),
    text(shipping.stateName),
    text(shipping.countryIso2),
  ]
    .filter(Boolean)
    .join(", ");
}

export function exportCells(order: ExportOrder, personalData: boolean): CsvValue[] {
  const shipping = record(order.shipping);
  const contact = record(shipping.contact);
  const name = [text(contact.firstName), text(contact.lastName)].filter(Boolean).join(" ");
  const cells: CsvValue[] = [
    order.externalDocumentNumber,
    order.correlationId,
    order.ticket,
    order.profile,
    order.requestedBy,
    name,
    itemsCell(order.orderLines),
    order.status,
    iso(order.createdAt),
    iso(order.placedAt),
    iso(order.deliveredAt),
    trackingCell(order.tracking),
    order.neededBy ?? "",
    order.expectedDelivery ?? "",
    order.lateDays ?? "",
  ];
  if (personalData) cells.push(text(contact.email), text(contact.phoneNumber), addressCell(shipping));
  return cells;
}
