/**
 * Supplier webhook deliveries, each event with a unique id, in one of the sandbox's two dialects:
 * - `default`: our own event format, signed with Standard Webhooks;
 * - `alt`: the sandbox's second dialect (`toAltEvent`, what `order-desk sandbox --dialect alt` sends), signed as
 *   that dialect signs: `X-Supplier-Signature: sha256=<hex HMAC-SHA256 of "{timestamp}.{body}">`.
 * The bodies are built before the run and each is signed as it is sent (a fresh timestamp, one HMAC): the load
 * generator shares the machine with what it measures, so it does as little as it can per request, and the same
 * for both dialects so that an A/B between them measures the receiver. The signatures are computed here with
 * node:crypto, not by our signing module, so our verifier is measured against an independent signer; the
 * Standard Webhooks one is checked once against the reference `standardwebhooks` package.
 */
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import type autocannon from "autocannon";
import { Webhook } from "standardwebhooks";
import { toAltEvent } from "../../src/sandbox/dialect.ts";
import type { SupplierEvent } from "../../src/supplier/events.ts";

export interface WebhookScenarioOptions {
  /** `default`: `whsec_<base64>`; `alt`: the HMAC key (its UTF-8 bytes are the key). */
  secret: string;
  path: string;
  /** Correlation ids to spread the events over (orders the receiver knows); random ones when empty. */
  correlationIds?: string[];
  /** How many bodies to build ahead; past them, bodies are built as they are sent. */
  prepare?: number;
  /** Which dialect (and signing) to send; default `default`. */
  dialect?: "default" | "alt";
  /** `status`: status changes only (default); `mixed`: every other event a shipping update with two lines. */
  kinds?: "status" | "mixed";
}

interface Body {
  id: string;
  text: string;
}

function eventOf(id: string, correlationId: string, sequence: number, shipping: boolean): SupplierEvent {
  const head = {
    id,
    occurredAt: new Date().toISOString(),
    correlationId,
    externalDocumentNumber: `BENCH-${sequence}`,
  };
  if (!shipping) {
    return {
      ...head,
      type: "order.status_changed",
      data: { status: "in_fulfilment", previousStatus: "validated" },
    } as SupplierEvent;
  }
  return {
    ...head,
    type: "order.shipping_updated",
    data: {
      parcel: { number: 1, of: 2 },
      carrier: "DHL Express",
      trackingNumber: `JD0146${String(sequence).padStart(8, "0")}`,
      trackingUrl: `https://track.example.com/JD0146${sequence}`,
      estimatedDelivery: "2026-12-03",
      status: "in_transit",
      lines: [
        { itemNumber: "LAP-14-PRO", quantity: 1 },
        { itemNumber: "DOCK-USB-C", quantity: 2 },
      ],
    },
  } as SupplierEvent;
}

/** The signing headers of one attempt, signed now. */
type Signer = (body: Body) => Record<string, string>;

function standardWebhooksSigner(secret: string): Signer {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return ({ id, text }) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${text}`).digest("base64");
    return {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": timestamp,
      "webhook-signature": `v1,${signature}`,
    };
  };
}

function altSigner(secret: string): Signer {
  const key = Buffer.from(secret, "utf8");
  return ({ id, text }) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac("sha256", key).update(`${timestamp}.${text}`).digest("hex");
    return {
      "content-type": "application/json",
      "x-supplier-signature": `sha256=${signature}`,
      "x-supplier-timestamp": timestamp,
      "x-supplier-delivery": id,
    };
  };
}

/** Our Standard Webhooks signature is the reference implementation's, or the run is meaningless. */
function checkAgainstReference(secret: string, sign: Signer): void {
  const body = { id: "msg_reference_check", text: '{"check":true}' };
  const ours = sign(body);
  const reference = new Webhook(secret).sign(
    body.id,
    new Date(Number(ours["webhook-timestamp"]) * 1000),
    body.text,
  );
  if (reference !== ours["webhook-signature"]) {
    throw new Error("the scenario's Standard Webhooks signature differs from the standardwebhooks package's");
  }
}

export default function webhookScenario(options: unknown): autocannon.Request[] {
  const {
    secret,
    path,
    correlationIds = [],
    prepare = 50_000,
    dialect = "default",
    kinds = "status",
  } = options as WebhookScenarioOptions;
  const sign = dialect === "alt" ? altSigner(secret) : standardWebhooksSigner(secret);
  if (dialect === "default") checkAgainstReference(secret, sign);
  const prefix = `evt_bench_${randomBytes(4).toString("hex")}`;
  let sequence = 0;
  const make = (): Body => {
    sequence += 1;
    const id = `${prefix}_${sequence}`;
    const correlationId = correlationIds[sequence % Math.max(1, correlationIds.length)] ?? randomUUID();
    const event = eventOf(id, correlationId, sequence, kinds === "mixed" && sequence % 2 === 0);
    return { id, text: JSON.stringify(dialect === "alt" ? toAltEvent(event) : event) };
  };
  const prepared = Array.from({ length: prepare }, make);
  let next = 0;
  return [
    {
      method: "POST",
      path,
      setupRequest: (request) => {
        const body = prepared[next] ?? make();
        // Free what was sent: a long run must not keep every body alive.
        if (next < prepared.length) prepared[next] = undefined as unknown as Body;
        next += 1;
        return { ...request, body: body.text, headers: sign(body) };
      },
    },
  ];
}
