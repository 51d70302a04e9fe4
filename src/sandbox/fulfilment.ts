/**
 * The fulfilment simulation as data: at acceptance an order gets a plan, the list of events it will emit and
 * when (realistic offsets from acceptance; the scheduler divides them by `--speed`). A pure function of the order
 * and a seeded generator, so a seed replays the same carriers, tracking numbers, parcel splits and timings, and a
 * stored plan resumes after a restart exactly where it stopped.
 *
 *   received → validated → in_fulfilment → picked → packed
 *     → per parcel: shipping_updated(shipped) [status partially_shipped, or shipped with the last parcel]
 *     → per parcel: shipping_updated(out_for_delivery), shipping_updated(delivered)
 *     → delivered (after the last parcel)
 *
 * A fulfilment fault (faults.ts) changes the plan: a stalled order stops after `in_fulfilment` (or says nothing at
 * all); a late one slips as a whole, once: at one moment every parcel under way gets an `in_transit` update with
 * the order's slipped estimate (and, when it recovers, at a later moment one with its usual estimate back), and a
 * parcel shipped in between carries the slipped estimate from its `shipped` update on. A receiver that takes the
 * latest of the parcels' estimates sees the order's estimate slip once and come back once. Faults draw nothing
 * from the generator, so an order without one plays exactly as it would without the feature.
 */
import { createHash } from "node:crypto";
import {
  SHIPPING_UPDATED,
  type ShippingUpdatedData,
  STATUS_CHANGED,
  type StatusChangedData,
  type SupplierEvent,
  type SupplierOrderState,
} from "../supplier/events.ts";
import type { CreateOrderRequest, DeliveryAt } from "../supplier/schema.ts";
import { isoDate, isoWithOffset } from "./clock.ts";
import type { FulfilmentFault } from "./faults.ts";
import type { Random } from "./random.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;

/**
 * Gaps between steps at `--speed 1`, before jitter (each gap is multiplied by a factor in [0.75, 1.25)).
 * One parcel takes about 38 minutes from acceptance to delivery; each further parcel ships ~3 minutes later.
 */
export const TIMELINE = {
  validated: 20 * SECOND,
  inFulfilment: 1 * MINUTE,
  picked: 6 * MINUTE,
  packed: 4 * MINUTE,
  /** From packed to the first parcel's hand-over, then between parcels. */
  parcelShipped: 3 * MINUTE,
  outForDelivery: 12 * MINUTE,
  parcelDelivered: 8 * MINUTE,
  /** From the last parcel's delivery to the order's `delivered`. */
  orderDelivered: 30 * SECOND,
} as const;

/** Share of orders with two or more lines that ship in more than one parcel. */
export const SPLIT_PROBABILITY = 0.35;
export const MAX_PARCELS = 3;

interface Carrier {
  name: string;
  trackingNumber(random: Random): string;
}

const CARRIERS: Record<string, Carrier> = {
  dhl: { name: "DHL Express", trackingNumber: (r) => r.digits(10) },
  ups: { name: "UPS", trackingNumber: (r) => `1Z${r.hex(6).toUpperCase()}${r.digits(10)}` },
  fedex: { name: "FedEx", trackingNumber: (r) => r.digits(12) },
  dpd: { name: "DPD", trackingNumber: (r) => r.digits(14) },
  postnl: { name: "PostNL", trackingNumber: (r) => `3S${r.hex(4).toUpperCase()}${r.digits(9)}` },
  gls: { name: "GLS", trackingNumber: (r) => r.digits(11) },
};

/** Business deliveries go by express carriers; home deliveries by parcel services (the spec: `deliveryAt` "affects carrier handling"). */
const CARRIERS_BY_DESTINATION: Record<DeliveryAt, readonly string[]> = {
  Office: ["dhl", "ups", "fedex"],
  Home: ["dpd", "postnl", "gls", "ups"],
};

/** Business days from shipping to the estimated delivery date. */
const TRANSIT_DAYS: Record<DeliveryAt, readonly [number, number]> = { Office: [1, 2], Home: [2, 4] };

export type PlannedEvent =
  | { offsetMs: number; type: typeof STATUS_CHANGED; data: StatusChangedData }
  | { offsetMs: number; type: typeof SHIPPING_UPDATED; data: ShippingUpdatedData };

export interface PlanInput {
  correlationId: string;
  request: CreateOrderRequest;
  acceptedAt: number;
  /** A parcel's tracking page (the sandbox points it at its own view of the order). */
  trackingUrl: (parcel: { carrier: string; trackingNumber: string; number: number }) => string;
  /** What goes wrong with this order's fulfilment (decided at acceptance); none by default. */
  fault?: FulfilmentFault | undefined;
}

/**
 * Where between the first parcel's shipping and its out-for-delivery a late order's slip, then its recovery, come.
 * The timeline's gaps put every parcel's out-for-delivery after the recovery (a later parcel ships at least 2¼ min
 * after the first and is out at least 9 min after that; the recovery comes at most 10 min after the first ships),
 * so a slip never has to be told to a parcel already on the van.
 */
const SLIP_AT = 1 / 3;
const RECOVER_AT = 2 / 3;

function addBusinessDays(ms: number, days: number): number {
  let at = ms;
  let left = days;
  while (left > 0) {
    at += DAY;
    const weekday = new Date(at).getUTCDay();
    if (weekday !== 0 && weekday !== 6) left -= 1;
  }
  return at;
}

/** Splits the lines to ship (quantity > 0) into parcels; every parcel holds at least one line. */
function splitIntoParcels(
  lines: ReadonlyArray<{ itemNumber: string; quantity: number }>,
  random: Random,
): Array<Array<{ itemNumber: string; quantity: number }>> {
  const shipped = lines.filter((line) => line.quantity > 0);
  const count =
    shipped.length >= 2 && random.chance(SPLIT_PROBABILITY)
      ? random.int(2, Math.min(MAX_PARCELS, shipped.length))
      : 1;
  const parcels: Array<Array<{ itemNumber: string; quantity: number }>> = Array.from(
    { length: count },
    () => [],
  );
  // The first `count` lines seed one parcel each; the rest land in a random parcel.
  shipped.forEach((line, index) => {
    const target = index < count ? index : random.int(0, count - 1);
    parcels[target]?.push({ itemNumber: line.itemNumber, quantity: line.quantity });
  });
  return parcels;
}

/**
 * When a late order slips and recovers (offsets from acceptance, from its first parcel's journey) and the estimate
 * every parcel gives meanwhile: the order's latest usual estimate plus `slipDays` business days, one date for all.
 */
function slipOf(
  parcels: ReadonlyArray<{ estimate: string; shippedAt: number; outAt: number }>,
  late: NonNullable<FulfilmentFault["late"]>,
): { at: number; recoversAt: number | null; estimate: string } {
  const first = parcels[0] as (typeof parcels)[number];
  const between = (share: number) => first.shippedAt + Math.round((first.outAt - first.shippedAt) * share);
  // YYYY-MM-DD strings sort as the days do.
  const latest = parcels.map((p) => p.estimate).sort()[parcels.length - 1] as string;
  return {
    at: between(SLIP_AT),
    recoversAt: late.recovers ? between(RECOVER_AT) : null,
    estimate: isoDate(addBusinessDays(Date.parse(`${latest}T12:00:00Z`), late.slipDays)),
  };
}

export function planFulfilment(input: PlanInput, random: Random): PlannedEvent[] {
  const jitter = (ms: number) => Math.round(ms * (0.75 + random.next() * 0.5));
  const steps: PlannedEvent[] = [];
  let status: SupplierOrderState | undefined;
  const statusAt = (offsetMs: number, next: SupplierOrderState) => {
    steps.push({
      offsetMs,
      type: STATUS_CHANGED,
      data: status === undefined ? { status: next } : { status: next, previousStatus: status },
    });
    status = next;
  };

  const { fault } = input;
  if (fault?.stall?.silent) return steps;
  let at = 0;
  statusAt(at, "received");
  for (const [gap, next] of [
    [TIMELINE.validated, "validated"],
    [TIMELINE.inFulfilment, "in_fulfilment"],
    [TIMELINE.picked, "picked"],
    [TIMELINE.packed, "packed"],
  ] as const) {
    at += jitter(gap);
    statusAt(at, next);
    // Accepted and started, then never shipped.
    if (fault?.stall && next === "in_fulfilment") return steps;
  }

  const { deliveryAt } = input.request.shipping;
  const carrier = CARRIERS[random.pick(CARRIERS_BY_DESTINATION[deliveryAt])] as Carrier;
  const lines = splitIntoParcels(input.request.orderLines, random);
  const [minDays, maxDays] = TRANSIT_DAYS[deliveryAt];
  // Every parcel's journey first (the draws in the order they always were), then its events: a late order's slip
  // is decided for the order as a whole, from all of its parcels.
  const parcels = lines.map((parcelLines, index) => {
    at += jitter(TIMELINE.parcelShipped);
    const trackingNumber = carrier.trackingNumber(random);
    const estimate = isoDate(addBusinessDays(input.acceptedAt + at, random.int(minDays, maxDays)));
    const outAt = at + jitter(TIMELINE.outForDelivery);
    const deliveredAt = outAt + jitter(TIMELINE.parcelDelivered);
    return {
      number: index + 1,
      lines: parcelLines,
      trackingNumber,
      estimate,
      shippedAt: at,
      outAt,
      deliveredAt,
    };
  });
  const slip = fault?.late ? slipOf(parcels, fault.late) : null;
  const later: PlannedEvent[] = [];
  let lastDelivered = at;

  for (const p of parcels) {
    /** The parcel's estimate as the supplier states it at `offsetMs`: the slipped one while the slip lasts. */
    const estimateAt = (offsetMs: number) =>
      slip && offsetMs >= slip.at && (slip.recoversAt === null || offsetMs < slip.recoversAt)
        ? slip.estimate
        : p.estimate;
    const parcel = (status: ShippingUpdatedData["status"], estimate: string): ShippingUpdatedData => ({
      parcel: { number: p.number, of: parcels.length },
      carrier: carrier.name,
      trackingNumber: p.trackingNumber,
      trackingUrl: input.trackingUrl({
        carrier: carrier.name,
        trackingNumber: p.trackingNumber,
        number: p.number,
      }),
      estimatedDelivery: estimate,
      status,
      lines: p.lines,
    });
    steps.push({
      offsetMs: p.shippedAt,
      type: SHIPPING_UPDATED,
      data: parcel("shipped", estimateAt(p.shippedAt)),
    });
    if (p.number === 1 && parcels.length > 1) statusAt(p.shippedAt, "partially_shipped");
    if (p.number === parcels.length) statusAt(p.shippedAt, "shipped");
    // Under way when the order slips (or recovers): told then, with the others.
    if (slip && p.shippedAt < slip.at) {
      later.push({ offsetMs: slip.at, type: SHIPPING_UPDATED, data: parcel("in_transit", slip.estimate) });
    }
    if (slip?.recoversAt != null && p.shippedAt < slip.recoversAt) {
      later.push({
        offsetMs: slip.recoversAt,
        type: SHIPPING_UPDATED,
        data: parcel("in_transit", p.estimate),
      });
    }
    later.push({
      offsetMs: p.outAt,
      type: SHIPPING_UPDATED,
      data: parcel("out_for_delivery", estimateAt(p.outAt)),
    });
    later.push({
      offsetMs: p.deliveredAt,
      type: SHIPPING_UPDATED,
      data: parcel("delivered", estimateAt(p.deliveredAt)),
    });
    lastDelivered = Math.max(lastDelivered, p.deliveredAt);
  }

  steps.push(...later);
  // Stable sort: events at the same offset keep the order they were planned in.
  steps.sort((a, b) => a.offsetMs - b.offsetMs);
  // Parcels travel independently, but the order is delivered only after every one of them.
  const last = steps[steps.length - 1] as PlannedEvent;
  statusAt(Math.max(lastDelivered, last.offsetMs) + jitter(TIMELINE.orderDelivered), "delivered");
  return steps;
}

/**
 * When each step occurs, in whole milliseconds: `acceptedAt + offsetMs / speed`, nudged so that the times of one
 * order strictly increase (steps planned at the same moment, or closer than a millisecond at high speeds, would
 * otherwise tie). Consumers can then order an order's events by `occurredAt` alone. Also the scheduler's due times,
 * so an event's `occurredAt` is its planned time even when the sandbox emits it late (under load, after a restart).
 */
export function stepTimes(
  order: { acceptedAt: number; plan: readonly PlannedEvent[] },
  speed: number,
): number[] {
  const times: number[] = [];
  let previous = Number.NEGATIVE_INFINITY;
  for (const step of order.plan) {
    previous = Math.max(Math.floor(order.acceptedAt + step.offsetMs / speed), previous + 1);
    times.push(previous);
  }
  return times;
}

/** Event ids are derived from the order and the step, so a re-emitted step (after a crash) keeps its id. */
export function eventId(correlationId: string, seq: number): string {
  return `evt_${createHash("sha256").update(`${correlationId}:${seq}`).digest("hex").slice(0, 24)}`;
}

export function toSupplierEvent(
  order: { correlationId: string; externalDocumentNumber: string },
  step: PlannedEvent,
  seq: number,
  occurredAt: number,
): SupplierEvent {
  return {
    id: eventId(order.correlationId, seq),
    type: step.type,
    occurredAt: isoWithOffset(occurredAt),
    correlationId: order.correlationId,
    externalDocumentNumber: order.externalDocumentNumber,
    data: step.data,
  };
}
