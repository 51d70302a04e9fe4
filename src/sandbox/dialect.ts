/**
 * The sandbox's two webhook dialects. `default` is our own event format signed with Standard Webhooks. `alt`
 * stands in for a supplier whose events look nothing like ours — other type names, nested fields, another id and
 * time field, upper-case codes, an HMAC header — so that the configurable mapping and signing (issue #30) are
 * tested against something real. The sandbox stores and plans events in our format either way; the dialect only
 * changes what goes on the wire, computed afresh from the stored event on every attempt, so a redelivery carries
 * the same id and the same body.
 */
import {
  SHIPPING_UPDATED,
  type ShippingUpdatedData,
  STATUS_CHANGED,
  type StatusChangedData,
  type SupplierEvent,
} from "../supplier/events.ts";
import {
  generateSigningSecret,
  STANDARD_WEBHOOKS_SIGNING,
  type WebhookSigning,
  webhookSecretProblems,
} from "../supplier/webhook-signing.ts";

export const SANDBOX_DIALECTS = ["default", "alt"] as const;
export type SandboxDialect = (typeof SANDBOX_DIALECTS)[number];

/** How the alt dialect signs: `X-Supplier-Signature: sha256=<hex HMAC of "{timestamp}.{body}">`. */
export const ALT_DIALECT_SIGNING: WebhookSigning = {
  scheme: "hmac-sha256",
  signatureHeader: "X-Supplier-Signature",
  encoding: "hex",
  prefix: "sha256=",
  timestampHeader: "X-Supplier-Timestamp",
  signedContent: "{timestamp}.{body}",
  idHeader: "X-Supplier-Delivery",
};

export function signingOf(dialect: SandboxDialect): WebhookSigning {
  return dialect === "alt" ? ALT_DIALECT_SIGNING : STANDARD_WEBHOOKS_SIGNING;
}

/** What the dialect is called where people read it (the CLI's banner). */
export function describeDialect(dialect: SandboxDialect): string {
  return dialect === "alt"
    ? "alt dialect, HMAC-SHA256 signatures (X-Supplier-Signature)"
    : "Standard Webhooks signatures";
}

const upper = (code: string) => code.toUpperCase();

/** Our event in the alt shape. Optional fields are left out rather than sent as null, as ours are. */
export function toAltEvent(event: SupplierEvent): Record<string, unknown> {
  const head = {
    eventId: event.id,
    createdAt: Date.parse(event.occurredAt),
    order: {
      correlationId: event.correlationId,
      ...(event.externalDocumentNumber !== undefined && { documentNumber: event.externalDocumentNumber }),
    },
  };
  if (event.type === STATUS_CHANGED) {
    const data = event.data as StatusChangedData;
    return {
      eventId: head.eventId,
      eventType: data.status === "cancelled" ? "ORDER_CANCELLED" : "ORDER_STATUS",
      createdAt: head.createdAt,
      order: head.order,
      status: {
        code: upper(data.status),
        ...(data.previousStatus !== undefined && { previous: upper(data.previousStatus) }),
        ...(data.reason !== undefined && { note: data.reason }),
      },
    };
  }
  if (event.type === SHIPPING_UPDATED) {
    const data = event.data as ShippingUpdatedData;
    return {
      eventId: head.eventId,
      eventType: "SHIPMENT",
      createdAt: head.createdAt,
      order: head.order,
      shipment: {
        parcel: { index: data.parcel.number, total: data.parcel.of },
        carrier: { name: data.carrier },
        tracking: { code: data.trackingNumber, link: data.trackingUrl },
        ...(data.estimatedDelivery !== undefined && { eta: data.estimatedDelivery }),
        state: upper(data.status),
        ...(data.exceptionReason !== undefined && { problem: data.exceptionReason }),
        items: data.lines.map((line) => ({ sku: line.itemNumber, qty: line.quantity })),
      },
    };
  }
  // The sandbox plans no other kind; should one appear, it goes out under its own name with its data.
  return {
    eventId: head.eventId,
    eventType: upper(event.type),
    createdAt: head.createdAt,
    order: head.order,
    data: event.data,
  };
}

/** The exact body sent for an event. The default dialect's is `JSON.stringify(event)`, as it always was. */
export function encodeEvent(dialect: SandboxDialect, event: SupplierEvent): string {
  return JSON.stringify(dialect === "alt" ? toAltEvent(event) : event);
}

/** The secrets to sign with: the given ones if the dialect's scheme can use them, else one generated. */
export function resolveWebhookSecrets(
  dialect: SandboxDialect,
  given: string | readonly string[] | undefined,
): { ok: true; secrets: string[] } | { ok: false; problems: string[] } {
  const signing = signingOf(dialect);
  const secrets =
    given === undefined ? [generateSigningSecret(signing)] : typeof given === "string" ? [given] : [...given];
  if (secrets.length === 0)
    return { ok: false, problems: ["webhookSecret is empty: give at least one secret."] };
  const problems = webhookSecretProblems(signing, secrets);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, secrets };
}
