/**
 * Checks a draft with our own rules (the ticket id, the catalog, quantities, Office needs a company) and then with
 * the supplier's rules (`checkOrderRequest`), and reports every problem at once on the draft's fields. The
 * supplier's rules run on the very request we would send, so what passes here is not rejected for the same reason.
 */
import type { Customer } from "../config/catalog.ts";
import { MAX_EDN_LENGTH, type Profile } from "../config/customer-schema.ts";
import { checkOrderRequest } from "../supplier/rules.ts";
import type { CreateOrderRequest } from "../supplier/schema.ts";
import { customerToday } from "./dates/lead-time.ts";
import { neededByProblem } from "./dates/needed-by.ts";
import { normalizeDraft, type OrderDraft } from "./draft.ts";
import { renderEdn, TYPED_EDN, TYPED_EDN_CHARACTERS } from "./edn.ts";
import { addFieldError, type FieldErrors, fieldErrorsFromDetails, mergeFieldErrors } from "./fields.ts";
import { draftToRequest } from "./request.ts";

export type DraftCheck =
  | { ok: true; draft: OrderDraft; profile: Profile; request: CreateOrderRequest }
  | { ok: false; draft: OrderDraft; errors: FieldErrors };

export interface CheckDraftOptions {
  /** The document number to check with; default: the agent's, else the pattern with counter 1. */
  externalDocumentNumber?: string;
  now?: Date;
}

function ownChecks(
  draft: OrderDraft,
  customer: Customer,
  profile: Profile | undefined,
  now: Date,
): FieldErrors {
  const errors: FieldErrors = {};
  const neededBy = neededByProblem(draft.neededBy ?? "", {
    today: customerToday(customer.config, now),
    required: profile?.neededBy === "required",
  });
  if (neededBy) addFieldError(errors, "neededBy", neededBy);
  if (!profile) {
    addFieldError(
      errors,
      "profile",
      draft.profile === ""
        ? "Choose an ordering profile."
        : `There is no ordering profile "${draft.profile}" any more; choose another one.`,
    );
  }
  if (draft.ticket === "")
    addFieldError(errors, "ticket", "Enter the ticket id, for example ABC-123 or #123.");
  else if (!customer.ticketIdPattern.test(draft.ticket)) {
    addFieldError(errors, "ticket", `"${draft.ticket}" is not a ticket id; use the form ABC-123 or #123.`);
  }
  if (draft.deliveryAt === null) addFieldError(errors, "deliveryAt", "Choose Office or Home.");
  if (draft.deliveryAt === "Office" && draft.company === "") {
    addFieldError(errors, "company", "Enter the company: the carrier needs it for an Office delivery.");
  }
  if (draft.country === "") addFieldError(errors, "country", "Choose the country.");
  if (draft.lines.length === 0) addFieldError(errors, "lines", "Add at least one item.");
  draft.lines.forEach((line, i) => {
    if (line.itemNumber === "") addFieldError(errors, `lines.${i}.itemNumber`, "Choose an item.");
    else if (!customer.item(line.itemNumber)) {
      addFieldError(
        errors,
        `lines.${i}.itemNumber`,
        `${line.itemNumber} is not in the agreed catalog; choose an item from the list.`,
      );
    }
    if (line.quantity === "") addFieldError(errors, `lines.${i}.quantity`, "Enter a quantity.");
    else if (!/^\d{1,9}$/.test(line.quantity)) {
      addFieldError(errors, `lines.${i}.quantity`, "Enter a whole number, such as 1 or 2.");
    } else if (Number(line.quantity) < 1) addFieldError(errors, `lines.${i}.quantity`, "Enter at least 1.");
  });
  const edn = draft.externalDocumentNumber;
  if (edn !== "") {
    if (!customer.config.externalDocumentNumber.allowManual) {
      addFieldError(
        errors,
        "externalDocumentNumber",
        "Order numbers are generated for this customer; leave this field empty.",
      );
    } else if (edn.length > MAX_EDN_LENGTH || !TYPED_EDN.test(edn)) {
      addFieldError(
        errors,
        "externalDocumentNumber",
        `Use only ${TYPED_EDN_CHARACTERS} (no spaces), at most ${MAX_EDN_LENGTH} characters, or leave it empty to get one generated.`,
      );
    }
  }
  return errors;
}

export function checkDraft(
  input: OrderDraft,
  customer: Customer,
  options: CheckDraftOptions = {},
): DraftCheck {
  const draft = normalizeDraft(input);
  const profile = customer.profile(draft.profile);
  const own = ownChecks(draft, customer, profile, options.now ?? new Date());
  // Without a profile the delivery and lines are still checked (with any profile's agreed values) so that every
  // problem shows at once; profile-level findings of that stand-in are not the agent's to fix.
  const rulesProfile = profile ?? customer.config.profiles[0];
  if (!rulesProfile) return { ok: false, draft, errors: own };

  const edn =
    options.externalDocumentNumber ??
    (draft.externalDocumentNumber ||
      renderEdn(
        customer.config.externalDocumentNumber.pattern,
        { ticket: draft.ticket, profile: rulesProfile.name, now: options.now ?? new Date() },
        1,
      ));
  const checked = checkOrderRequest(
    draftToRequest(draft, rulesProfile, edn, customer.config.expressOrderType?.type),
  );
  const supplier = checked.ok ? {} : fieldErrorsFromDetails(checked.details);
  if (!profile) delete supplier.profile;
  // "At least one line with a quantity greater than 0" repeats, under the first item, what our quantity checks
  // already say under each quantity: shown once, there.
  if (supplier.lines && Object.keys(own).some((field) => /^lines\.\d+\.quantity$/.test(field))) {
    const rest = supplier.lines.filter((m) => !/with a quantity greater than 0/.test(m));
    if (rest.length > 0) supplier.lines = rest;
    else delete supplier.lines;
  }
  const errors = mergeFieldErrors(own, supplier);
  if (!profile || Object.keys(errors).length > 0 || !checked.ok) return { ok: false, draft, errors };
  return { ok: true, draft, profile, request: checked.value };
}
