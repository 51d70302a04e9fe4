/**
 * The Workflow Builder step's inputs (manifest.yml `functions.place_order`), defined once: their ids and titles,
 * and how they are read into an order draft at the boundary, so a workflow goes through exactly the rules of the
 * modal (`checkDraft`/`submitOrder`). Problems are named by the step's inputs ("Items: …", "Recipient e-mail: …")
 * because that is what a workflow author sees and edits; the domain names them through the `StepInputNames`
 * port (orders/workflow/ports.ts), which `workflowInputNames` implements.
 */
import type { Customer } from "../config/catalog.ts";
import type { DraftLine, OrderDraft } from "../orders/draft.ts";
import { type FieldErrors, fieldLabel } from "../orders/fields.ts";
import type { StepInputNames, WorkflowDraftResult } from "../orders/workflow/ports.ts";

export interface WorkflowInputs {
  ticket_id?: unknown;
  recipient?: unknown;
  requested_by?: unknown;
  first_name?: unknown;
  last_name?: unknown;
  email?: unknown;
  phone?: unknown;
  delivery_at?: unknown;
  company?: unknown;
  attention?: unknown;
  address1?: unknown;
  address2?: unknown;
  city?: unknown;
  zip?: unknown;
  state?: unknown;
  country?: unknown;
  items?: unknown;
  needed_by?: unknown;
  profile?: unknown;
  channel?: unknown;
  [other: string]: unknown;
}

/** Input name → its title in the manifest (what the workflow author sees). */
export const WORKFLOW_INPUT_TITLES: Record<string, string> = {
  ticket_id: "Ticket",
  recipient: "Recipient (Slack user)",
  requested_by: "Requested by",
  first_name: "Recipient first name",
  last_name: "Recipient last name",
  email: "Recipient e-mail",
  phone: "Recipient phone",
  delivery_at: "Deliver to",
  company: "Company",
  attention: "Attention",
  address1: "Address line 1",
  address2: "Address line 2",
  city: "City",
  zip: "Postal code",
  state: "State",
  country: "Country",
  items: "Items",
  needed_by: "Needed by",
  profile: "Ordering profile",
  channel: "Channel for the order",
};

/** Draft field → the step input that feeds it. */
const INPUT_FOR_FIELD: Record<string, string> = {
  profile: "profile",
  ticket: "ticket_id",
  firstName: "first_name",
  lastName: "last_name",
  email: "email",
  phone: "phone",
  deliveryAt: "delivery_at",
  company: "company",
  attention: "attention",
  address1: "address1",
  address2: "address2",
  city: "city",
  zip: "zip",
  state: "state",
  country: "country",
  lines: "items",
  externalDocumentNumber: "ticket_id",
  shippingReference: "ticket_id",
  neededBy: "needed_by",
};

export function inputForField(field: string): string {
  return field.startsWith("lines.") ? "items" : (INPUT_FOR_FIELD[field] ?? field);
}

/** Field errors as one message per input: `Recipient e-mail (email): Must be a valid e-mail address.` */
export function describeWorkflowErrors(errors: FieldErrors): string[] {
  return Object.entries(errors).flatMap(([field, messages]) => {
    const input = inputForField(field);
    const where = field.startsWith("lines.") ? `${fieldLabel(field)}: ` : "";
    return messages.map((m) => `${WORKFLOW_INPUT_TITLES[input] ?? input} (${input}): ${where}${m}`);
  });
}

const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

const str = (value: unknown): string =>
  typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";

const ITEM_TOKEN = /^(.+?)(?:\s*(?:[x×*:])\s*(\d+))?$/i;
const LEADING_QUANTITY = /^(\d+)\s*(?:[x×*])\s*(.+)$/i;

/**
 * "ITEM-1 x2, ITEM-2", "2x ITEM-1", one item per line, or a bundle's name (also mixed: "Remote starter kit,
 * PHONE-STD"). Unknown item numbers are kept as typed so the catalog check names them.
 */
export function parseItems(text: string, customer: Customer): { lines: DraftLine[]; problems: string[] } {
  const lines: DraftLine[] = [];
  const problems: string[] = [];
  const whole = customer.bundle(text);
  const tokens = whole
    ? [text]
    : text
        .split(/[,;\n]+/)
        .map((t) => t.trim())
        .filter(Boolean);
  for (const token of tokens) {
    const bundle = customer.bundle(token);
    if (bundle) {
      for (const l of bundle.lines) {
        lines.push({ itemNumber: l.itemNumber, quantity: String(l.quantity), comment: l.comment ?? "" });
      }
      continue;
    }
    const leading = LEADING_QUANTITY.exec(token);
    const match = leading
      ? { item: leading[2]!, qty: leading[1]! }
      : (() => {
          const m = ITEM_TOKEN.exec(token);
          return { item: m?.[1] ?? token, qty: m?.[2] ?? "1" };
        })();
    const itemNumber = match.item.trim();
    if (/\s/.test(itemNumber)) {
      problems.push(
        `"${token}" is neither an item number nor a bundle; write item numbers with quantities, such as "LAP-14-PRO x2", or a bundle name.`,
      );
      continue;
    }
    lines.push({ itemNumber, quantity: match.qty, comment: "" });
  }
  return { lines, problems };
}

/**
 * Turns the step's inputs into a draft (not yet checked: pass it to `submitOrder`, which runs the modal's rules,
 * and turn its field errors into input names with `describeWorkflowErrors`).
 */
export function draftFromWorkflowInputs(inputs: WorkflowInputs, customer: Customer): WorkflowDraftResult {
  const problems: string[] = [];
  const channelId = str(inputs.channel);
  if (channelId === "")
    problems.push(`${WORKFLOW_INPUT_TITLES.channel} (channel): choose the channel for the order.`);

  const requestedBy = str(inputs.requested_by);
  if (requestedBy !== "" && !SLACK_USER_ID.test(requestedBy)) {
    problems.push(
      `${WORKFLOW_INPUT_TITLES.requested_by} (requested_by): choose a person (for example "Person who used this workflow").`,
    );
  }

  let profile = str(inputs.profile);
  if (profile === "" && channelId !== "") {
    const candidates = customer.profilesForChannel(channelId);
    if (candidates.length === 1) profile = candidates[0]!.name;
    else if (candidates.length === 0) {
      problems.push(
        `${WORKFLOW_INPUT_TITLES.channel} (channel): no ordering profile is set up for channel ${channelId}; pick a helpdesk channel or ask an admin to add it to a profile.`,
      );
    } else {
      problems.push(
        `${WORKFLOW_INPUT_TITLES.profile} (profile): channel ${channelId} has several profiles (${candidates.map((p) => p.name).join(", ")}); set this input to one of them.`,
      );
    }
  } else if (profile !== "" && !customer.profile(profile)) {
    problems.push(
      `${WORKFLOW_INPUT_TITLES.profile} (profile): there is no profile "${profile}"; use one of ${customer.config.profiles.map((p) => `"${p.name}"`).join(", ")}.`,
    );
  }

  const deliveryText = str(inputs.delivery_at).toLowerCase();
  const deliveryAt = deliveryText === "office" ? "Office" : deliveryText === "home" ? "Home" : null;
  if (deliveryText !== "" && deliveryAt === null) {
    problems.push(`${WORKFLOW_INPUT_TITLES.delivery_at} (delivery_at): type exactly Office or Home.`);
  }

  // A value of another kind (a list, an object, true) would otherwise be read as no date at all: the order placed
  // without the date the workflow meant to give.
  const neededBy = inputs.needed_by;
  if (neededBy != null && typeof neededBy !== "string" && typeof neededBy !== "number") {
    problems.push(`${WORKFLOW_INPUT_TITLES.needed_by} (needed_by): give one date, written YYYY-MM-DD.`);
  }

  const items = parseItems(str(inputs.items), customer);
  for (const p of items.problems) problems.push(`${WORKFLOW_INPUT_TITLES.items} (items): ${p}`);
  const draft: OrderDraft = {
    profile,
    ticket: str(inputs.ticket_id),
    firstName: str(inputs.first_name),
    lastName: str(inputs.last_name),
    email: str(inputs.email),
    phone: str(inputs.phone),
    deliveryAt,
    company: str(inputs.company),
    attention: str(inputs.attention),
    address1: str(inputs.address1),
    address2: str(inputs.address2),
    city: str(inputs.city),
    zip: str(inputs.zip),
    state: str(inputs.state),
    country: str(inputs.country).toUpperCase(),
    lines: items.lines,
    externalDocumentNumber: "",
    shippingReference: "",
    neededBy: str(inputs.needed_by),
  };
  if (problems.length > 0) return { ok: false, problems, draft };

  const recipient = str(inputs.recipient);
  return {
    ok: true,
    channelId,
    recipientUserId: recipient === "" ? null : recipient,
    requestedBy: requestedBy === "" ? null : requestedBy,
    draft,
  };
}

/** The step's names for the domain (orders/workflow/ports.ts). */
export const workflowInputNames: StepInputNames = {
  inputForField,
  describeErrors: describeWorkflowErrors,
};
