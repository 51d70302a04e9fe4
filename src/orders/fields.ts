/**
 * THE path map: the supplier's field paths (`Shipping.Contact.Email`, `OrderLines[2].Quantity`) ↔ the draft's
 * fields. One map serves our own checks, the supplier's `error.details` after a rejection, the modal's inline
 * errors and the plain-words reasons on the order message, so a field is named the same way everywhere.
 */
import { inPlainWords } from "./plain-words.ts";

export type ScalarField =
  | "profile"
  | "ticket"
  | "firstName"
  | "lastName"
  | "email"
  | "phone"
  | "deliveryAt"
  | "company"
  | "attention"
  | "address1"
  | "address2"
  | "city"
  | "zip"
  | "state"
  | "country"
  | "lines"
  | "externalDocumentNumber"
  | "shippingReference"
  | "neededBy";

export type LineField = "itemNumber" | "quantity" | "comment";

/** A scalar field, or `lines.<index>.<field>` (index into the normalised draft's lines). */
export type DraftField = ScalarField | `lines.${number}.${LineField}`;

/** Draft field → messages (plain words, already without the supplier's path prefix). */
export type FieldErrors = Record<string, string[]>;

const SCALAR_BY_PATH: Record<string, ScalarField> = {
  CustomerReference: "ticket",
  ExternalDocumentNumber: "externalDocumentNumber",
  Shipping: "address1",
  "Shipping.Contact": "firstName",
  "Shipping.Contact.FirstName": "firstName",
  "Shipping.Contact.LastName": "lastName",
  "Shipping.Contact.Email": "email",
  "Shipping.Contact.PhoneNumber": "phone",
  "Shipping.DeliveryAt": "deliveryAt",
  "Shipping.CompanyName": "company",
  "Shipping.Attention": "attention",
  "Shipping.Address1": "address1",
  "Shipping.Address2": "address2",
  "Shipping.City": "city",
  "Shipping.ZipCode": "zip",
  "Shipping.StateName": "state",
  "Shipping.CountryIso2": "country",
  "Shipping.Reference": "shippingReference",
  OrderLines: "lines",
};

const LINE_FIELD_BY_SEGMENT: Record<string, LineField> = {
  ItemNumber: "itemNumber",
  Quantity: "quantity",
  Comments: "comment",
};

const LINE_PATH = /^OrderLines\[(\d+)\](?:\.(\w+))?$/;

/**
 * Where a supplier path belongs in the draft. Paths the agent cannot change (Invoice, Consignee, SellTo, Type:
 * they come from the profile) land on `profile`; so does anything we do not recognise, rather than being lost.
 */
export function fieldForSupplierPath(path: string): DraftField {
  const normalised = path.trim();
  const scalar = SCALAR_BY_PATH[normalised] ?? SCALAR_BY_PATH[caseInsensitiveKey(normalised)];
  if (scalar) return scalar;
  const line = LINE_PATH.exec(normalised);
  if (line) {
    const field = (line[2] && LINE_FIELD_BY_SEGMENT[line[2]]) || "itemNumber";
    return `lines.${Number(line[1])}.${field}`;
  }
  return "profile";
}

const lowerKeys = new Map(Object.keys(SCALAR_BY_PATH).map((k) => [k.toLowerCase(), k]));
function caseInsensitiveKey(path: string): string {
  return lowerKeys.get(path.toLowerCase()) ?? path;
}

/** Fields that come from the profile rather than from the agent. */
export function isProfilePath(path: string): boolean {
  return fieldForSupplierPath(path) === "profile";
}

/**
 * `'Shipping.Contact.Email' must be a valid e-mail address.` → `Must be a valid e-mail address.` The field is
 * named by where the message is shown. Profile-level problems keep their path: the agent cannot fix them and an
 * admin needs to know which value is wrong.
 */
export function plainMessage(path: string, message: string): string {
  if (isProfilePath(path)) {
    return `The ordering profile is misconfigured (${path}: ${message.replace(/^'[^']*'\s*/, "")}). Ask an admin to fix it in order-desk.config.yml.`;
  }
  const reworded = inPlainWords(message, fieldLabel(fieldForSupplierPath(path)));
  if (reworded !== null) return reworded;
  const stripped = message.replace(/^'[^']*'\s*/, "").trim();
  if (stripped.length === 0) return "Is not valid.";
  return stripped.charAt(0).toUpperCase() + stripped.slice(1);
}

export function addFieldError(errors: FieldErrors, field: DraftField, message: string): void {
  const list = errors[field];
  if (!list) errors[field] = [message];
  else if (!list.includes(message)) list.push(message);
}

/** Maps the supplier's `error.details` (or our local run of the same rules) onto draft fields. */
export function fieldErrorsFromDetails(details: Record<string, readonly string[]>): FieldErrors {
  const errors: FieldErrors = {};
  for (const [path, messages] of Object.entries(details)) {
    const field = fieldForSupplierPath(path);
    for (const message of messages) addFieldError(errors, field, plainMessage(path, message));
  }
  return errors;
}

/** Adds `extra` for the fields `base` does not mention (our own, friendlier checks win over the generic ones). */
export function mergeFieldErrors(base: FieldErrors, extra: FieldErrors): FieldErrors {
  const out: FieldErrors = { ...base };
  for (const [field, messages] of Object.entries(extra)) if (!(field in out)) out[field] = [...messages];
  return out;
}

const LABELS: Record<ScalarField, string> = {
  profile: "Ordering profile",
  ticket: "Ticket",
  firstName: "First name",
  lastName: "Last name",
  email: "E-mail",
  phone: "Phone",
  deliveryAt: "Deliver to",
  company: "Company",
  attention: "Attention",
  address1: "Address line 1",
  address2: "Address line 2",
  city: "City",
  zip: "Postal code",
  state: "State",
  country: "Country",
  lines: "Items",
  externalDocumentNumber: "Order number",
  shippingReference: "Shipping reference",
  neededBy: "Needed by",
};

const LINE_LABELS: Record<LineField, string> = {
  itemNumber: "item",
  quantity: "quantity",
  comment: "comment",
};

/** A field's name as the agent sees it in the modal ("Line 2 quantity"). */
export function fieldLabel(field: string): string {
  const line = /^lines\.(\d+)\.(\w+)$/.exec(field);
  if (line) return `Line ${Number(line[1]) + 1} ${LINE_LABELS[line[2] as LineField] ?? line[2]}`;
  return LABELS[field as ScalarField] ?? field;
}

/** Every problem in plain words, one per line: "E-mail: Must be a valid e-mail address." */
export function describeFieldErrors(errors: FieldErrors): string[] {
  return Object.entries(errors).flatMap(([field, messages]) =>
    messages.map((m) => (field === "profile" ? m : `${fieldLabel(field)}: ${m}`)),
  );
}
