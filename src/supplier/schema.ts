/**
 * The supplier's Order Placement API contract in zod: the single source of truth for the request, the response
 * envelope and the error codes. The client, the sandbox and the Slack modal all import these.
 *
 * The request schemas are structural (types and presence) and deliberately permissive where the spec says
 * "nullable string" or leaves required-ness open; the supplier's business rules (non-empty invoice id, ISO
 * country codes, quantities, e-mail, phone, state for US/AU, line limits) live in `rules.ts` so that every
 * failure can be reported at once under the supplier's field paths. Decisions: docs/supplier-contract.md.
 */
import { z } from "zod";

/** Our cap on order lines; the spec leaves it open (docs/supplier-contract.md). */
export const MAX_ORDER_LINES = 500;
/** Our cap on a serialised request body, in bytes (1 MiB); the spec leaves it open. */
export const MAX_BODY_BYTES = 1_048_576;
/** Order type used when the request does not name one (spec: "Default is `New`"). */
export const DEFAULT_ORDER_TYPE = "New";

/** "string or null" in the spec; also accepted when absent. */
const nullableText = z.string().nullable().optional();

export const contactSchema = z.object({
  firstName: z.string(),
  lastName: z.string(),
  /** International format with a country prefix, e.g. "+44 20 7946 0958" (checked in rules.ts). */
  phoneNumber: z.string(),
  email: z.string(),
});

/**
 * Invoice party. The spec allows "an existing invoice record id, or a full address", and also requires the id
 * not to be empty; we therefore always require `id` and accept the address fields alongside it.
 */
export const invoicePartySchema = z.object({
  id: z.string(),
  vatNumber: nullableText,
  companyName: nullableText,
  attentionName: nullableText,
  address1: nullableText,
  address2: nullableText,
  city: nullableText,
  zipCode: nullableText,
  stateName: nullableText,
  countryIso2: nullableText,
});

/** Consignee given by an existing consignee id agreed with the account manager. */
export const consigneeByIdSchema = z.object({ id: z.string() });

/** Consignee given as a full address (field list not shown in the spec: we mirror the invoice party). */
export const consigneeAddressSchema = z.object({
  id: nullableText,
  companyName: z.string(),
  attentionName: nullableText,
  address1: z.string(),
  address2: nullableText,
  city: z.string(),
  zipCode: z.string(),
  stateName: nullableText,
  countryIso2: z.string(),
});

/**
 * Consignee: a full address, an existing `id`, or null when not used. The address variant is tried first so an
 * address that also carries an id keeps its address fields.
 */
export const consigneeSchema = z.union([consigneeAddressSchema, consigneeByIdSchema]).nullable();

export const sellToSchema = z.object({
  id: nullableText,
  companyName: nullableText,
  contact: contactSchema.nullable().optional(),
  address1: nullableText,
  address2: nullableText,
  city: nullableText,
  zipCode: nullableText,
  stateName: nullableText,
  countryIso2: nullableText,
});

export const DELIVERY_AT = ["Office", "Home"] as const;
export const deliveryAtSchema = z.enum(DELIVERY_AT);

export const shippingSchema = z.object({
  id: nullableText,
  /** Optional: a delivery to a remote user's home has no company. */
  companyName: nullableText,
  deliveryAt: deliveryAtSchema,
  contact: contactSchema,
  address1: z.string(),
  address2: nullableText,
  city: z.string(),
  zipCode: z.string(),
  stateName: nullableText,
  countryIso2: z.string(),
  /** Person to address the delivery to. Position and type not shown in the spec: our answer. */
  attention: nullableText,
  /** Customer's internal shipping reference. Position and type not shown in the spec: our answer. */
  reference: nullableText,
});

export const orderLineSchema = z.object({
  itemNumber: z.string(),
  /** Integer ≥ 0, and > 0 on at least one line (checked in rules.ts with the supplier's paths). */
  quantity: z.number(),
  customerReference: nullableText,
  comments: nullableText,
  lineRef1: nullableText,
  lineRef2: nullableText,
  lineRef3: nullableText,
  lineRef4: nullableText,
});

export const createOrderRequestSchema = z.object({
  externalDocumentNumber: z.string(),
  type: z.string().default(DEFAULT_ORDER_TYPE),
  customerReference: nullableText,
  invoice: invoicePartySchema,
  consignee: consigneeSchema.optional(),
  sellTo: sellToSchema.nullable().optional(),
  shipping: shippingSchema,
  orderLines: z.array(orderLineSchema),
});

export type Contact = z.infer<typeof contactSchema>;
export type InvoiceParty = z.infer<typeof invoicePartySchema>;
export type Consignee = z.infer<typeof consigneeSchema>;
export type SellTo = z.infer<typeof sellToSchema>;
export type DeliveryAt = z.infer<typeof deliveryAtSchema>;
export type Shipping = z.infer<typeof shippingSchema>;
export type OrderLine = z.infer<typeof orderLineSchema>;
/** A request as sent (defaults applied). */
export type CreateOrderRequest = z.output<typeof createOrderRequestSchema>;
/** A request as a caller may write it (`type` may be omitted). */
export type CreateOrderRequestInput = z.input<typeof createOrderRequestSchema>;

// ---------------------------------------------------------------------------------------------------------
// Response envelope

export const ERROR_CODES = [
  "INVALID_PAYLOAD",
  "DUPLICATE_ORDER",
  "VALIDATION_FAILED",
  "INTERNAL_SERVER_ERROR",
] as const;
export const errorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

/** Field path (e.g. `Invoice.Id`, `OrderLines[1].Quantity`) → messages. */
export const validationDetailsSchema = z.record(z.string(), z.array(z.string()));

export const errorObjectSchema = z.object({
  code: errorCodeSchema,
  message: z.string(),
  /** A details map for VALIDATION_FAILED; null otherwise. */
  details: validationDetailsSchema.nullable().optional(),
});
export type ErrorObject = z.infer<typeof errorObjectSchema>;

/** UUID-shaped (any version): we match on it, we do not interpret it. */
export const correlationIdSchema = z.guid();

export const metaSchema = z.object({
  /** ISO 8601 date-time with a UTC offset. */
  timestamp: z.iso.datetime({ offset: true }),
  correlationId: correlationIdSchema,
});
export type Meta = z.infer<typeof metaSchema>;

export const successEnvelopeSchema = z.object({
  success: z.literal(true),
  data: z.object({ correlationId: correlationIdSchema }),
  error: z.null().optional(),
  meta: metaSchema,
});
export type SuccessEnvelope = z.infer<typeof successEnvelopeSchema>;

export const failureEnvelopeSchema = z.object({
  success: z.literal(false),
  data: z.null().optional(),
  error: errorObjectSchema,
  meta: metaSchema,
});
export type FailureEnvelope = z.infer<typeof failureEnvelopeSchema>;

export const envelopeSchema = z.discriminatedUnion("success", [successEnvelopeSchema, failureEnvelopeSchema]);
export type Envelope = z.infer<typeof envelopeSchema>;
