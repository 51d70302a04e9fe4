/**
 * The `supplierEvents` mapping of the customer file (`fields`, `statusChanged`, `shippingUpdated`, `types`,
 * `statuses`, `parcelStatuses`): where each value of an event is in the supplier's JSON and what their names
 * mean in ours. Every key is optional; a key not given keeps today's default, which reads our own event format,
 * so an install without the block behaves as before. A path may be `null` where the value is optional: it is
 * then not read. Paths are checked here, at start-up, so a path that cannot be one never reaches the receiver.
 */
import { z } from "zod";
import { PARCEL_STATUSES, SUPPLIER_ORDER_STATES } from "./events.ts";
import { compilePath } from "./json-path.ts";

/** What a supplier's type name may mean: one of the two kinds, or a status change to one of our states. */
export const EVENT_MILESTONES = ["statusChanged", "shippingUpdated", ...SUPPLIER_ORDER_STATES] as const;
export type EventMilestone = (typeof EVENT_MILESTONES)[number];

const pathSchema = z
  .string({
    error: "expected a path: a dotted path such as `order.id` or a JSON Pointer such as `/order/id`",
  })
  .superRefine((text, ctx) => {
    const compiled = compilePath(text);
    if (!compiled.ok) ctx.addIssue({ code: "custom", message: compiled.problem });
  });

/** A path every event needs. */
const path = (fallback: string) => pathSchema.default(fallback);
/** A path that may be `null`: the value is then not read. */
const optionalPath = (fallback: string) => pathSchema.nullable().default(fallback);

const quoted = (input: unknown) =>
  typeof input === "string" ? `"${input.length > 60 ? `${input.slice(0, 60)}…` : input}"` : String(input);

const milestoneSchema = z.enum(EVENT_MILESTONES, {
  error: (issue) =>
    `${quoted(issue.input)} is not a milestone: use statusChanged, shippingUpdated or one of our order states (${SUPPLIER_ORDER_STATES.join(", ")})`,
});
const stateSchema = z.enum(SUPPLIER_ORDER_STATES, {
  error: (issue) =>
    `${quoted(issue.input)} is not one of our order states: use ${SUPPLIER_ORDER_STATES.join(", ")}`,
});
const parcelStatusSchema = z.enum(PARCEL_STATUSES, {
  error: (issue) => `${quoted(issue.input)} is not a parcel status: use ${PARCEL_STATUSES.join(", ")}`,
});
const name = z.string().min(1, "a name cannot be empty");

const identity = <T extends string>(values: readonly T[]) =>
  Object.fromEntries(values.map((value) => [value, value])) as Record<string, T>;

export const eventMappingSchema = z.strictObject({
  fields: z
    .strictObject({
      /** `null`: the supplier sends no id; deliveries are deduplicated by a hash of the body. */
      id: optionalPath("id"),
      type: path("type"),
      occurredAt: path("occurredAt"),
      correlationId: optionalPath("correlationId"),
      externalDocumentNumber: optionalPath("externalDocumentNumber"),
    })
    .superRefine((fields, ctx) => {
      if (fields.correlationId === null && fields.externalDocumentNumber === null) {
        ctx.addIssue({
          code: "custom",
          path: ["correlationId"],
          message:
            "correlationId and externalDocumentNumber cannot both be null: an event needs one of them to find its order",
        });
      }
    })
    .prefault({}),
  statusChanged: z
    .strictObject({
      status: path("data.status"),
      previousStatus: optionalPath("data.previousStatus"),
      reason: optionalPath("data.reason"),
    })
    .prefault({}),
  shippingUpdated: z
    .strictObject({
      /** `null`: the supplier does not number parcels; every update is parcel 1 (of 1). */
      parcelNumber: optionalPath("data.parcel.number"),
      parcelCount: optionalPath("data.parcel.of"),
      carrier: path("data.carrier"),
      trackingNumber: path("data.trackingNumber"),
      trackingUrl: optionalPath("data.trackingUrl"),
      estimatedDelivery: optionalPath("data.estimatedDelivery"),
      status: path("data.status"),
      exceptionReason: optionalPath("data.exceptionReason"),
      /** A list; each element is read with the two paths below, relative to the element. */
      lines: optionalPath("data.lines"),
      lineItemNumber: path("itemNumber"),
      lineQuantity: path("quantity"),
    })
    .prefault({}),
  /** Supplier type name → milestone. A type not named here is kept and shown as received. */
  types: z.record(name, milestoneSchema).default(
    (): Record<string, EventMilestone> => ({
      "order.status_changed": "statusChanged",
      "order.shipping_updated": "shippingUpdated",
    }),
  ),
  /** Supplier status value → our order state. */
  statuses: z.record(name, stateSchema).default(() => identity(SUPPLIER_ORDER_STATES)),
  /** Supplier parcel status → our parcel status. */
  parcelStatuses: z.record(name, parcelStatusSchema).default(() => identity(PARCEL_STATUSES)),
});

/** The mapping as validated, every default filled in. */
export type EventMapping = z.output<typeof eventMappingSchema>;
/** The mapping as written in the customer file. */
export type EventMappingInput = z.input<typeof eventMappingSchema>;

/** Today's format: our own events, read as they always were. */
export const DEFAULT_EVENT_MAPPING: EventMapping = eventMappingSchema.parse({});
