/**
 * The supplier's validation rules, applied before any request (and by our sandbox as the supplier would).
 * Every failing field is reported at once, keyed by the supplier's field paths (`Invoice.Id`,
 * `Shipping.Contact.Email`, `OrderLines[1].Quantity`), so one path map serves our checks, the supplier's
 * `error.details` and the Slack modal's inline errors.
 *
 * Two passes over the same input: the zod schema reports structure (types, presence), then the business rules
 * walk the raw input and report only values of the right type, so a field is never reported twice. The raw walk
 * (instead of refinements on the schema) lets the business rules run even when the structure is broken
 * elsewhere. This runs in the sandbox's hot path: no allocation beyond the result, no regex backtracking.
 */
import type { z } from "zod";
import { isCountryCode, STATE_REQUIRED_COUNTRIES } from "./countries.ts";
import type { ValidationDetails } from "./errors.ts";
import { type CreateOrderRequest, createOrderRequestSchema, MAX_ORDER_LINES } from "./schema.ts";

export type { ValidationDetails } from "./errors.ts";

export type CheckResult = { ok: true; value: CreateOrderRequest } | { ok: false; details: ValidationDetails };

/** Key used for problems with the request as a whole (not an object, too large). */
export const ROOT_PATH = "Request";

/** `["orderLines", 1, "quantity"]` → `OrderLines[1].Quantity`; `[]` → `Request`. */
export function toSupplierPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") {
      out += `[${segment}]`;
    } else {
      const name = String(segment);
      out += (out ? "." : "") + name.charAt(0).toUpperCase() + name.slice(1);
    }
  }
  return out || ROOT_PATH;
}

export function addDetail(details: ValidationDetails, path: string, message: string): void {
  const list = details[path];
  if (list) {
    if (!list.includes(message)) list.push(message);
  } else {
    details[path] = [message];
  }
}

// ---------------------------------------------------------------------------------------------------------
// Messages: one place, in the supplier's style ("'Invoice.Id' must not be empty.").

const message = {
  required: (p: string) => `'${p}' is required.`,
  type: (p: string, expected: string) =>
    `'${p}' must be ${/^[aeiou]/.test(expected) ? "an" : "a"} ${expected}.`,
  oneOf: (p: string, values: readonly unknown[]) =>
    `'${p}' must be one of: ${values.map(String).join(", ")}.`,
  empty: (p: string) => `'${p}' must not be empty.`,
  country: (p: string) =>
    `'${p}' must be a recognised ISO 3166-1 alpha-2 country code (for example "GB", "US").`,
  state: (p: string, country: string) => `'${p}' is required for addresses in ${country}.`,
  email: (p: string) => `'${p}' must be a valid e-mail address.`,
  phone: (p: string) =>
    `'${p}' must be in international format: "+", the country prefix and the number (for example "+44 20 7946 0958").`,
  integer: (p: string) => `'${p}' must be a whole number.`,
  negative: (p: string) => `'${p}' must be 0 or more.`,
  noLines: (p: string) => `'${p}' must contain at least one order line.`,
  tooManyLines: (p: string, count: number) =>
    `'${p}' must not contain more than ${MAX_ORDER_LINES} lines (it has ${count}); split the order.`,
  noPositiveQuantity: (p: string) => `'${p}' must have at least one line with a quantity greater than 0.`,
  consignee: (p: string) => `'${p}' must be an existing consignee id, a full address, or null.`,
};

/** Maps one zod issue (structure) to the supplier's path and a readable message. */
function addZodIssue(
  details: ValidationDetails,
  issue: z.core.$ZodIssue,
  base: readonly PropertyKey[] = [],
): void {
  const fullPath = base.length ? [...base, ...issue.path] : issue.path;
  const path = toSupplierPath(fullPath);
  switch (issue.code) {
    case "invalid_type":
      addDetail(
        details,
        path,
        issue.input === undefined || issue.input === null
          ? message.required(path)
          : message.type(path, issue.expected),
      );
      return;
    case "invalid_value":
      addDetail(details, path, message.oneOf(path, issue.values));
      return;
    case "invalid_union": {
      // Only the consignee is a union: an address or an id. Report the branch the caller evidently meant.
      const input = issue.input;
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        addDetail(details, path, message.consignee(path));
        return;
      }
      const keys = Object.keys(input);
      const meantId = keys.length > 0 && keys.every((k) => k === "id");
      const branch = issue.errors[meantId ? 1 : 0] ?? issue.errors[0] ?? [];
      for (const inner of branch) addZodIssue(details, inner, fullPath);
      return;
    }
    default:
      addDetail(details, path, `'${path}': ${issue.message}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Business rules over the raw input.

type Obj = Record<string, unknown>;

function asObject(value: unknown): Obj | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

function isBlank(value: string): boolean {
  return value.trim().length === 0;
}

// Linear-time patterns (no nested quantifiers): safe on hostile input.
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
/** "+", a non-zero country prefix digit, then 6–14 more digits; single spaces or hyphens may separate digits. */
const PHONE = /^\+[1-9](?:[ -]?[0-9]){6,14}$/;

export function isValidEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

export function isInternationalPhone(value: string): boolean {
  return PHONE.test(value);
}

/** A present string field must not be blank (presence itself is the schema's job). */
function notBlank(details: ValidationDetails, obj: Obj, key: string, path: string): void {
  const value = obj[key];
  if (typeof value === "string" && isBlank(value)) addDetail(details, path, message.empty(path));
}

function checkContact(details: ValidationDetails, value: unknown, prefix: string): void {
  const contact = asObject(value);
  if (!contact) return;
  notBlank(details, contact, "firstName", `${prefix}.FirstName`);
  notBlank(details, contact, "lastName", `${prefix}.LastName`);
  const email = contact.email;
  if (typeof email === "string" && !isValidEmail(email))
    addDetail(details, `${prefix}.Email`, message.email(`${prefix}.Email`));
  const phone = contact.phoneNumber;
  if (typeof phone === "string" && !isInternationalPhone(phone)) {
    addDetail(details, `${prefix}.PhoneNumber`, message.phone(`${prefix}.PhoneNumber`));
  }
}

/** Country code (when given as a string) and the US/AU state rule. */
function checkAddress(details: ValidationDetails, party: Obj, prefix: string): void {
  const country = party.countryIso2;
  if (typeof country !== "string") return;
  const path = `${prefix}.CountryIso2`;
  if (!isCountryCode(country)) {
    addDetail(details, path, message.country(path));
    return;
  }
  if (STATE_REQUIRED_COUNTRIES.has(country)) {
    const state = party.stateName;
    if (typeof state !== "string" || isBlank(state)) {
      addDetail(details, `${prefix}.StateName`, message.state(`${prefix}.StateName`, country));
    }
  }
}

function checkBusinessRules(details: ValidationDetails, request: Obj): void {
  notBlank(details, request, "externalDocumentNumber", "ExternalDocumentNumber");
  notBlank(details, request, "type", "Type");

  const invoice = asObject(request.invoice);
  if (invoice) {
    // The spec's first rule. A missing or null id is reported by the schema under the same path.
    notBlank(details, invoice, "id", "Invoice.Id");
    checkAddress(details, invoice, "Invoice");
  }

  const consignee = asObject(request.consignee);
  if (consignee) {
    const byIdOnly = consignee.address1 === undefined && consignee.countryIso2 === undefined;
    if (byIdOnly) notBlank(details, consignee, "id", "Consignee.Id");
    else {
      for (const key of ["companyName", "address1", "city", "zipCode"]) {
        notBlank(details, consignee, key, `Consignee.${key.charAt(0).toUpperCase()}${key.slice(1)}`);
      }
      checkAddress(details, consignee, "Consignee");
    }
  }

  const sellTo = asObject(request.sellTo);
  if (sellTo) {
    checkAddress(details, sellTo, "SellTo");
    checkContact(details, sellTo.contact, "SellTo.Contact");
  }

  const shipping = asObject(request.shipping);
  if (shipping) {
    notBlank(details, shipping, "address1", "Shipping.Address1");
    notBlank(details, shipping, "city", "Shipping.City");
    notBlank(details, shipping, "zipCode", "Shipping.ZipCode");
    checkAddress(details, shipping, "Shipping");
    checkContact(details, shipping.contact, "Shipping.Contact");
  }

  const lines = request.orderLines;
  if (Array.isArray(lines)) {
    if (lines.length === 0) addDetail(details, "OrderLines", message.noLines("OrderLines"));
    if (lines.length > MAX_ORDER_LINES)
      addDetail(details, "OrderLines", message.tooManyLines("OrderLines", lines.length));
    let anyPositive = false;
    let allNumeric = true;
    for (let i = 0; i < lines.length; i++) {
      const line = asObject(lines[i]);
      if (!line) {
        allNumeric = false;
        continue;
      }
      notBlank(details, line, "itemNumber", `OrderLines[${i}].ItemNumber`);
      const quantity = line.quantity;
      if (typeof quantity !== "number" || !Number.isFinite(quantity)) {
        allNumeric = false;
        continue;
      }
      if (!Number.isInteger(quantity))
        addDetail(details, `OrderLines[${i}].Quantity`, message.integer(`OrderLines[${i}].Quantity`));
      if (quantity < 0)
        addDetail(details, `OrderLines[${i}].Quantity`, message.negative(`OrderLines[${i}].Quantity`));
      if (quantity > 0) anyPositive = true;
    }
    // When a quantity is of the wrong type the schema reports it; "no positive quantity" would only be noise.
    if (lines.length > 0 && allNumeric && !anyPositive) {
      addDetail(details, "OrderLines", message.noPositiveQuantity("OrderLines"));
    }
  }
}

/**
 * Checks a request against the schema and the supplier's rules. Returns the parsed request (defaults applied,
 * unknown fields dropped) or every failing field at once.
 */
export function checkOrderRequest(input: unknown): CheckResult {
  const details: ValidationDetails = {};
  const parsed = createOrderRequestSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) addZodIssue(details, issue);
  }
  const request = asObject(input);
  if (request) checkBusinessRules(details, request);
  if (parsed.success && Object.keys(details).length === 0) return { ok: true, value: parsed.data };
  if (Object.keys(details).length === 0)
    addDetail(details, ROOT_PATH, `'${ROOT_PATH}' is not a valid order request.`);
  return { ok: false, details };
}
