/**
 * Maps a supplier's webhook body to our canonical event (events.ts), as the `supplierEvents` mapping says
 * (event-mapping-schema.ts). Compiled once at start-up; `map` runs for every delivery, so it walks precompiled
 * paths over the body as parsed and validates only the small event it built. It never throws: a body it cannot
 * read is answered with one sentence naming the mapping key and the path, for the admins and `events check`.
 */
import { createHash } from "node:crypto";
import type { EventMapping } from "./event-mapping-schema.ts";
import {
  compileFields,
  dateAt,
  type Field,
  integerAt,
  kindOf,
  shortValue,
  textAt,
  timeAt,
  Unreadable,
  urlAt,
} from "./event-values.ts";
import {
  PARCEL_STATUSES,
  type ParcelStatus,
  SHIPPING_UPDATED,
  STATUS_CHANGED,
  SUPPLIER_ORDER_STATES,
  type SupplierEventCanonical,
  type SupplierOrderState,
  shippingUpdatedEventSchema,
  statusChangedEventSchema,
  supplierEventSchema,
} from "./events.ts";
import { readPath } from "./json-path.ts";

export {
  DEFAULT_EVENT_MAPPING,
  EVENT_MILESTONES,
  type EventMapping,
  type EventMappingInput,
  type EventMilestone,
  eventMappingSchema,
} from "./event-mapping-schema.ts";
export { describeMapping } from "./event-mapping-summary.ts";
export { type BodyShape, describeShape } from "./event-shape.ts";

export type MapResult =
  | {
      ok: true;
      /** Parses with `parseSupplierEvent(event, { orderBy: "either" })`, as `kind` says. */
      event: SupplierEventCanonical;
      kind: "status_changed" | "shipping_updated" | "unknown";
    }
  | {
      ok: false;
      /** One sentence naming the mapping key and the path. */
      reason: string;
      /** The mapping key, e.g. `supplierEvents.fields.correlationId`. */
      field?: string;
      /** The event's id when it could be read, to deduplicate unreadable deliveries by. */
      id?: string;
    };

export interface MapOptions {
  /** Hex SHA-256 of the raw body (`hashBody`): the id when the mapping reads none. Computed when not given. */
  bodyHash?: string;
}

export interface EventMapper {
  map(body: unknown, options?: MapOptions): MapResult;
}

/** Hex SHA-256 of a raw body: with no id path, `sha256:<this>` is the event's id. */
export function hashBody(raw: string | Uint8Array): string {
  return createHash("sha256").update(raw).digest("hex");
}

type Milestone = { kind: "status" } | { kind: "shipping" } | { kind: "state"; state: SupplierOrderState };

const KEY = "supplierEvents";

function lookup<T extends string>(entries: Record<string, T>): Map<string, T> {
  return new Map(Object.entries(entries));
}

/** Compiles a validated mapping; throws only for a mapping that did not come through `eventMappingSchema`. */
export function compileEventMapping(mapping: EventMapping): EventMapper {
  const f = compileFields(`${KEY}.fields`, mapping.fields);
  const sc = compileFields(`${KEY}.statusChanged`, mapping.statusChanged);
  const su = compileFields(`${KEY}.shippingUpdated`, mapping.shippingUpdated);
  const types = new Map<string, Milestone>();
  for (const [type, milestone] of Object.entries(mapping.types)) {
    types.set(
      type,
      milestone === "statusChanged"
        ? { kind: "status" }
        : milestone === "shippingUpdated"
          ? { kind: "shipping" }
          : { kind: "state", state: milestone },
    );
  }
  const statuses = lookup<SupplierOrderState>(mapping.statuses);
  const parcelStatuses = lookup<ParcelStatus>(mapping.parcelStatuses);
  const mapped = (map: string, allowed: readonly string[]) =>
    `add it to ${KEY}.${map}, mapped to one of ${allowed.join(", ")}`;

  function stateOf(field: Field, value: string): SupplierOrderState {
    const ours = statuses.get(value);
    if (ours === undefined) {
      throw new Unreadable(
        `${shortValue(value)} at \`${field.path.text}\` (${field.key}) is not a status we know: ${mapped("statuses", SUPPLIER_ORDER_STATES)}`,
        field.key,
      );
    }
    return ours;
  }

  function statusData(body: object, fixed: SupplierOrderState | undefined): Record<string, unknown> {
    const status = fixed ?? stateOf(sc.status, textAt(body, sc.status, "a status change needs its status"));
    const data: Record<string, unknown> = { status };
    const previous = optionalText(body, sc.previousStatus);
    if (previous !== undefined && sc.previousStatus)
      data.previousStatus = stateOf(sc.previousStatus, previous);
    const reason = freeText(body, sc.reason);
    if (reason !== undefined) data.reason = reason;
    return data;
  }

  const SHIPPING = "a shipping update needs it";
  function shippingData(body: object): Record<string, unknown> {
    const number = su.parcelNumber ? integerAt(body, su.parcelNumber, 1, SHIPPING) : 1;
    const of = su.parcelCount ? integerAt(body, su.parcelCount, 1, SHIPPING) : 1;
    const carrier = textAt(body, su.carrier, SHIPPING, undefined, true);
    const trackingNumber = textAt(body, su.trackingNumber, SHIPPING);
    const statusField = su.status;
    const raw = textAt(body, statusField, SHIPPING);
    const status = parcelStatuses.get(raw);
    if (status === undefined) {
      throw new Unreadable(
        `${shortValue(raw)} at \`${statusField.path.text}\` (${statusField.key}) is not a parcel status we know: ${mapped("parcelStatuses", PARCEL_STATUSES)}`,
        statusField.key,
      );
    }
    const data: Record<string, unknown> = { parcel: { number, of }, carrier, trackingNumber };
    const url = su.trackingUrl ? urlAt(body, su.trackingUrl) : undefined;
    if (url !== undefined) data.trackingUrl = url;
    const eta = su.estimatedDelivery ? dateAt(body, su.estimatedDelivery) : undefined;
    if (eta !== undefined) data.estimatedDelivery = eta;
    data.status = status;
    data.lines = su.lines ? linesAt(body, su.lines) : [];
    const problem = freeText(body, su.exceptionReason);
    if (problem !== undefined) data.exceptionReason = problem;
    return data;
  }

  const itemField = su.lineItemNumber;
  const quantityField = su.lineQuantity;
  function linesAt(body: object, field: Field): Array<{ itemNumber: string; quantity: number }> {
    const list = readPath(body, field.path);
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) {
      throw new Unreadable(
        `\`${field.path.text}\` (${field.key}) is ${kindOf(list)}, not a list of lines`,
        field.key,
      );
    }
    const lines: Array<{ itemNumber: string; quantity: number }> = [];
    for (let i = 0; i < list.length; i++) {
      const element: unknown = list[i];
      const where = `line ${i + 1} of \`${field.path.text}\``;
      if (typeof element !== "object" || element === null || Array.isArray(element)) {
        throw new Unreadable(`${where} (${field.key}) is ${kindOf(element)}, not an object`, field.key);
      }
      lines.push({
        itemNumber: textAt(element, itemField, "every line needs its item number", where),
        quantity: integerAt(element, quantityField, 0, "every line needs its quantity", where),
      });
    }
    return lines;
  }

  const idField = f.id;
  const typeField = f.type;
  const timeField = f.occurredAt;

  function build(body: object, options: MapOptions | undefined, found: { id?: string }): MapResult {
    const id = idField
      ? textAt(body, idField, "every event needs an id to be deduplicated by")
      : `sha256:${options?.bodyHash ?? hashBody(JSON.stringify(body))}`;
    found.id = id;
    const type = textAt(body, typeField, "an event needs a type");
    const occurredAt = timeAt(body, timeField);
    const correlationId = optionalText(body, f.correlationId);
    if (correlationId !== undefined && !UUID.test(correlationId)) {
      const field = f.correlationId as Field;
      throw new Unreadable(
        `${shortValue(correlationId)} at \`${field.path.text}\` (${field.key}) is not a UUID, as the correlationId returned at placement is`,
        field.key,
      );
    }
    const documentNumber = optionalText(body, f.externalDocumentNumber);
    if (correlationId === undefined && documentNumber === undefined) throw noOrder();
    const milestone = types.get(type);
    const event: Record<string, unknown> = { id, type, occurredAt };
    if (correlationId !== undefined) event.correlationId = correlationId;
    if (documentNumber !== undefined) event.externalDocumentNumber = documentNumber;
    if (milestone === undefined) {
      // Shown as received: our own format's `data` when the body has one (as before mappings), else the body.
      const own = (body as { data?: unknown }).data;
      event.data = typeof own === "object" && own !== null && !Array.isArray(own) ? own : body;
      return checked(event, "unknown");
    }
    if (milestone.kind === "shipping") {
      event.type = SHIPPING_UPDATED;
      event.data = shippingData(body);
      return checked(event, "shipping_updated");
    }
    event.type = STATUS_CHANGED;
    event.data = statusData(body, milestone.kind === "state" ? milestone.state : undefined);
    return checked(event, "status_changed");
  }

  function noOrder(): Unreadable {
    const parts = [f.correlationId, f.externalDocumentNumber]
      .filter((field): field is Field => field !== null)
      .map((field) => `at \`${field.path.text}\` (${field.key})`);
    return new Unreadable(
      `no value ${parts.join(" and none ")}: an event needs one to find its order`,
      (f.correlationId ?? f.externalDocumentNumber)?.key,
    );
  }

  function optionalText(body: object, field: Field | null): string | undefined {
    return field === null ? undefined : textAt(body, field, null);
  }

  /** Text people read (a reason): kept whole, however long; the replies cut it short. */
  function freeText(body: object, field: Field | null): string | undefined {
    return field === null ? undefined : textAt(body, field, null, undefined, true);
  }

  return {
    map(body: unknown, options?: MapOptions): MapResult {
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        return { ok: false, reason: `the body is ${kindOf(body)}, not a JSON object: an event is an object` };
      }
      const found: { id?: string } = {};
      try {
        return build(body, options, found);
      } catch (error) {
        const reason =
          error instanceof Unreadable
            ? error.reason
            : `the body could not be mapped (${error instanceof Error ? error.message : String(error)})`;
        return {
          ok: false,
          reason,
          ...(error instanceof Unreadable && error.field !== undefined && { field: error.field }),
          ...(found.id !== undefined && { id: found.id }),
        };
      }
    },
  };
}

/** As `correlationIdSchema` (z.guid()) accepts: any 8-4-4-4-12 hex UUID. */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const SCHEMAS = {
  status_changed: statusChangedEventSchema,
  shipping_updated: shippingUpdatedEventSchema,
  unknown: supplierEventSchema,
} as const;

/** The mapped event through the canonical schema, so an `ok` result always parses downstream. */
function checked(event: Record<string, unknown>, kind: keyof typeof SCHEMAS): MapResult {
  const parsed = SCHEMAS[kind].safeParse(event);
  if (parsed.success) return { ok: true, event: parsed.data, kind };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return {
    ok: false,
    reason: `the mapped event is not valid (${where}${issue?.message ?? "unknown problem"})`,
    id: String(event.id),
  };
}
