/**
 * `orders.tracking`: where the order's parcels are, as the latest shipping updates say. App Home and the
 * parent message's status line read `latest` (the most recent update of any parcel); `parcels` keeps the most
 * recent update of each parcel. An older update arriving late never replaces a newer one.
 *
 * Shape (jsonb):
 *   { latest: TrackingInfo, parcels: { "1": TrackingInfo, "2": … } }
 */
import type { ShippingUpdatedEvent } from "../../supplier/events.ts";

export interface TrackingInfo {
  carrier: string;
  trackingNumber: string;
  /** Absent when the supplier sent none. */
  trackingUrl?: string;
  /** The parcel's status: shipped, in_transit, out_for_delivery, delivered, exception. */
  status: string;
  parcel: { number: number; of: number };
  estimatedDelivery?: string;
  exceptionReason?: string;
  /** ISO time of the event this comes from. */
  occurredAt: string;
  eventId: string;
}

export interface TrackingDoc {
  latest: TrackingInfo;
  parcels: Record<string, TrackingInfo>;
}

function isTrackingInfo(value: unknown): value is TrackingInfo {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.carrier === "string" &&
    typeof v.trackingNumber === "string" &&
    (v.trackingUrl === undefined || typeof v.trackingUrl === "string") &&
    typeof v.occurredAt === "string"
  );
}

/** Reads the stored document; anything else (null, an older shape) reads as no tracking. */
export function readTracking(value: unknown): TrackingDoc | null {
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  if (!isTrackingInfo(v.latest)) return null;
  const parcels: Record<string, TrackingInfo> = {};
  if (typeof v.parcels === "object" && v.parcels !== null) {
    for (const [k, p] of Object.entries(v.parcels)) if (isTrackingInfo(p)) parcels[k] = p;
  }
  return { latest: v.latest, parcels };
}

export function trackingInfoOf(event: ShippingUpdatedEvent): TrackingInfo {
  const d = event.data;
  return {
    carrier: d.carrier,
    trackingNumber: d.trackingNumber,
    ...(d.trackingUrl !== undefined && { trackingUrl: d.trackingUrl }),
    status: d.status,
    parcel: { number: d.parcel.number, of: d.parcel.of },
    ...(d.estimatedDelivery !== undefined && { estimatedDelivery: d.estimatedDelivery }),
    ...(d.exceptionReason !== undefined && { exceptionReason: d.exceptionReason }),
    occurredAt: new Date(event.occurredAt).toISOString(),
    eventId: event.id,
  };
}

const newer = (a: TrackingInfo, than: TrackingInfo | undefined) =>
  !than || Date.parse(a.occurredAt) >= Date.parse(than.occurredAt);

/** The document with `info` folded in, or null when it changes nothing (an older update). */
export function foldTracking(current: TrackingDoc | null, info: TrackingInfo): TrackingDoc | null {
  const key = String(info.parcel.number);
  const parcelIsNewer = newer(info, current?.parcels[key]);
  const latestIsNewer = newer(info, current?.latest);
  if (!parcelIsNewer && !latestIsNewer) return null;
  if (current && current.parcels[key]?.eventId === info.eventId) return null;
  return {
    latest: latestIsNewer || !current ? info : current.latest,
    parcels: { ...current?.parcels, ...(parcelIsNewer && { [key]: info }) },
  };
}
