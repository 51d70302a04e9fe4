/**
 * The customer file's `supplierEvents` block: how the supplier signs its deliveries and where each value of our
 * event is in its JSON (docs/webhooks.md, "Connecting your supplier's events"). Absent, it is today's contract:
 * Standard Webhooks and our own event format. The block may live in a file of its own, named by
 * `supplierEvents: { file: supplier-events.yml }` (relative to the customer file), read by customer.ts.
 */
import { z } from "zod";
import { type EventMapping, eventMappingSchema } from "../supplier/event-mapping.ts";
import { type WebhookSigning, webhookSigningSchema } from "../supplier/webhook-signing.ts";

export interface SupplierEvents {
  signing: WebhookSigning;
  mapping: EventMapping;
}

function message(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(", ")} (a typo? see docs/webhooks.md)`;
  }
  if (issue.code === "invalid_type" && issue.input === undefined) return "required";
  return issue.message;
}

/** Each part parsed by its own schema (the signing and the mapping are the supplier modules'), every problem kept. */
export const supplierEventsSchema = z
  .record(z.string(), z.unknown(), { error: "must be a mapping of signing, fields, types, …" })
  .default({})
  .transform((block, ctx): SupplierEvents => {
    const { signing, ...mapping } = block;
    const parts = [
      ["signing", webhookSigningSchema.safeParse(signing, { reportInput: true })],
      [null, eventMappingSchema.safeParse(mapping, { reportInput: true })],
    ] as const;
    for (const [at, result] of parts) {
      if (result.success) continue;
      for (const issue of result.error.issues) {
        ctx.addIssue({
          code: "custom",
          path: at === null ? issue.path : [at, ...issue.path],
          message: message(issue),
          input: undefined,
        });
      }
    }
    const [s, m] = [parts[0][1], parts[1][1]];
    return s.success && m.success ? { signing: s.data, mapping: m.data } : (z.NEVER as never);
  });
