/**
 * Supplier webhook deliveries: events in our schema (ARCHITECTURE.md), each with a unique id, signed with the
 * Standard Webhooks scheme by the reference `standardwebhooks` package — an independent signer, so our
 * verifier is measured against what any conforming sender produces. Signed ahead of the run so the load
 * generator spends its time sending; past the prepared batch it signs on the fly.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type autocannon from "autocannon";
import { Webhook } from "standardwebhooks";

export interface WebhookScenarioOptions {
  /** `whsec_<base64>`. */
  secret: string;
  path: string;
  /** Correlation ids to spread the events over (orders the receiver knows); random ones when empty. */
  correlationIds?: string[];
  /** How many deliveries to sign ahead. */
  prepare?: number;
}

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

export default function webhookScenario(options: unknown): autocannon.Request[] {
  const { secret, path, correlationIds = [], prepare = 20_000 } = options as WebhookScenarioOptions;
  const signer = new Webhook(secret);
  const prefix = `evt_bench_${randomBytes(4).toString("hex")}`;
  let sequence = 0;
  const make = (): Delivery => {
    sequence += 1;
    const id = `${prefix}_${sequence}`;
    const now = new Date();
    const body = JSON.stringify({
      id,
      type: "order.status_changed",
      occurredAt: now.toISOString(),
      correlationId: correlationIds[sequence % Math.max(1, correlationIds.length)] ?? randomUUID(),
      externalDocumentNumber: `BENCH-${sequence}`,
      data: { status: "in_fulfilment", previousStatus: "validated" },
    });
    return {
      body,
      headers: {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signer.sign(id, now, body),
      },
    };
  };
  const prepared = Array.from({ length: prepare }, make);
  let next = 0;
  return [
    {
      method: "POST",
      path,
      setupRequest: (request) => {
        const delivery = prepared[next] ?? make();
        // Free what was sent: a long run must not keep every body alive.
        if (next < prepared.length) prepared[next] = undefined as unknown as Delivery;
        next += 1;
        return { ...request, body: delivery.body, headers: delivery.headers };
      },
    },
  ];
}
