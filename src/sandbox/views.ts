/** What `/_sandbox/orders` and the test handle show of an order: the same shapes in both places. */
import { STATUS_CHANGED } from "../supplier/events.ts";
import { isoWithOffset } from "./clock.ts";
import { stepTimes, toSupplierEvent } from "./fulfilment.ts";
import type { DeliveryState, SandboxEventRecord, SandboxOrder } from "./store.ts";

export interface ViewContext {
  now: number;
  speed: number;
  /**
   * No webhook is configured, so no scheduler emits events (there is nothing to push): an order's progress is
   * a pure function of its plan and the clock, computed when someone looks. Steps due by `now` are shown as
   * emitted at their due time, with delivery `not_configured`.
   */
  lazy: boolean;
}

/** The order and its events as of `context.now` (adds the steps that fell due, in lazy mode). */
export function progressed(
  order: SandboxOrder,
  events: SandboxEventRecord[],
  context: ViewContext,
): { order: SandboxOrder; events: SandboxEventRecord[] } {
  if (!context.lazy) return { order, events };
  let current = order;
  const all = [...events];
  const times = stepTimes(order, context.speed);
  for (let seq = order.nextStep; seq < order.plan.length; seq++) {
    const step = order.plan[seq];
    const due = times[seq];
    if (!step || due === undefined || due > context.now) break;
    all.push({
      event: toSupplierEvent(order, step, seq, due),
      seq,
      emittedAt: due,
      delivery: "not_configured",
      deliveredAt: null,
      attempts: [],
    });
    current = {
      ...current,
      nextStep: seq + 1,
      ...(step.type === STATUS_CHANGED && { status: step.data.status, statusAt: due }),
    };
  }
  return { order: current, events: all };
}

export interface SandboxOrderSummary {
  correlationId: string;
  externalDocumentNumber: string;
  customerReference: string | null;
  customer: string;
  /** The key that placed it, redacted. */
  apiKey: string;
  status: SandboxOrder["status"];
  statusAt: string;
  acceptedAt: string;
  eventsEmitted: number;
  eventsPlanned: number;
}

export interface SandboxEventView {
  event: SandboxEventRecord["event"];
  emittedAt: string;
  delivery: {
    state: DeliveryState;
    deliveredAt: string | null;
    attempts: Array<{
      attempt: number;
      at: string;
      durationMs: number;
      httpStatus: number | null;
      error: string | null;
      duplicate: boolean;
    }>;
  };
}

export interface SandboxOrderDetail extends SandboxOrderSummary {
  request: SandboxOrder["request"];
  events: SandboxEventView[];
  /** Steps not emitted yet, with when they are due at the current speed. */
  upcoming: Array<{ type: string; dueAt: string; status: string; parcel?: { number: number; of: number } }>;
}

export function summarise(order: SandboxOrder): SandboxOrderSummary {
  return {
    correlationId: order.correlationId,
    externalDocumentNumber: order.externalDocumentNumber,
    customerReference: order.request.customerReference ?? null,
    customer: order.customer,
    apiKey: order.apiKey,
    status: order.status,
    statusAt: isoWithOffset(order.statusAt),
    acceptedAt: isoWithOffset(order.acceptedAt),
    eventsEmitted: order.nextStep,
    eventsPlanned: order.plan.length,
  };
}

export function describeOrder(
  order: SandboxOrder,
  events: SandboxEventRecord[],
  speed: number,
): SandboxOrderDetail {
  const times = stepTimes(order, speed);
  return {
    ...summarise(order),
    request: order.request,
    events: events.map((record) => ({
      event: record.event,
      emittedAt: isoWithOffset(record.emittedAt),
      delivery: {
        state: record.delivery,
        deliveredAt: record.deliveredAt === null ? null : isoWithOffset(record.deliveredAt),
        attempts: record.attempts.map((attempt) => ({ ...attempt, at: isoWithOffset(attempt.at) })),
      },
    })),
    upcoming: order.plan.slice(order.nextStep).map((step, index) => ({
      type: step.type,
      dueAt: isoWithOffset(times[order.nextStep + index] ?? order.acceptedAt),
      status: step.data.status,
      ...(step.type === "order.shipping_updated" && { parcel: step.data.parcel }),
    })),
  };
}
