/**
 * The order modal. Inputs keep stable block ids (line blocks are keyed, not numbered) so that "Add line",
 * "Remove line" and "Add bundle" can rebuild the view with `views.update` while Slack keeps what was typed.
 * Budget: at most 26 other blocks (a profile select, the needed-by date and its "Use Express" checkbox, the line
 * actions, the total with prices, the order number) + 3 per line ≤ 100, hence at most 24 lines in the form; texts
 * are cut to Slack's limits. Slack refuses a larger view outright (the agent would see nothing), so building one
 * throws here, where a test meets it, instead.
 */
import type { types } from "@slack/bolt";
import type { Customer } from "../../config/catalog.ts";
import { MAX_EDN_LENGTH } from "../../config/customer-schema.ts";
import type { OrderDraft } from "../../orders/draft.ts";
import { TYPED_EDN_CHARACTERS } from "../../orders/edn.ts";
import type { FieldErrors } from "../../orders/fields.ts";
import { COUNTRIES, isCountryCode } from "../../supplier/countries.ts";
import { encodeMetadata, type ModalMetadata } from "../metadata.ts";
import { ACTION, CALLBACK, FIELD_BLOCK } from "./ids.ts";
import { header, hint, textInput } from "./modal-inputs.ts";
import { neededByBlocks } from "./modal-needed-by.ts";
import {
  hasCountryLimits,
  lineActions,
  lineBlocks,
  linesTotal,
  MAX_MODAL_LINES,
} from "./order-modal-lines.ts";
import { mrkdwn, plain } from "./text.ts";

type KnownBlock = types.KnownBlock;
type ModalView = types.ModalView;
type Option = types.PlainTextOption;

export const MAX_VIEW_BLOCKS = 100;

export interface OrderModalInput {
  customer: Customer;
  /** The values to show (typed so far, a stored draft, or a fresh draft). */
  draft: OrderDraft;
  /** Profiles on offer; a select is shown when there are several. */
  profiles: readonly { name: string }[];
  meta: ModalMetadata;
  /** Problems to show on their fields when the modal opens ("Fix and resubmit"). */
  errors?: FieldErrors;
  /** A line of context at the top (e.g. "Only 24 lines fit…"). */
  notice?: string;
}

export function countryOption(code: string): Option {
  const name = isCountryCode(code) ? COUNTRIES[code] : code;
  return { text: plain(`${name} (${code})`, 75), value: code };
}

/** "Add at least one item" belongs under the first line's item. */
function withListErrorsOnFirstLine(errors: FieldErrors | undefined): FieldErrors | undefined {
  if (!errors?.lines) return errors;
  const { lines, ...rest } = errors;
  return { ...rest, "lines.0.itemNumber": [...lines, ...(rest["lines.0.itemNumber"] ?? [])] };
}

export function buildOrderModal(input: OrderModalInput): ModalView {
  const { customer, draft, meta } = input;
  const errors = withListErrorsOnFirstLine(input.errors);
  const keys = meta.lk.slice(0, MAX_MODAL_LINES);
  const blocks: KnownBlock[] = [];

  const where = meta.ch ? `<#${meta.ch}>` : "your direct messages with Order Desk";
  const context = [
    meta.o ? "Fix the order and submit it again." : `The order's updates will be posted in ${where}.`,
    input.notice,
    errors && Object.keys(errors).length > 0
      ? "⚠️ The supplier's objections are shown under the fields."
      : undefined,
  ]
    .filter(Boolean)
    .join(" ");
  blocks.push({ type: "context", elements: [mrkdwn(context)] });

  if (input.profiles.length > 1) {
    const selected = input.profiles.find((p) => p.name === draft.profile);
    blocks.push({
      type: "input",
      block_id: FIELD_BLOCK.profile,
      label: plain("Ordering profile"),
      element: {
        type: "static_select",
        action_id: ACTION.value,
        options: input.profiles.slice(0, 100).map((p) => ({ text: plain(p.name, 75), value: p.name })),
        ...(selected ? { initial_option: { text: plain(selected.name, 75), value: selected.name } } : {}),
      },
      ...hint(errors, "profile", "Which company account is invoiced."),
    } as KnownBlock);
  }

  const profileErrorsElsewhere = input.profiles.length > 1 ? undefined : errors?.profile;
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.ticket,
      label: "Ticket",
      value: draft.ticket,
      placeholder: "ABC-123 or #123",
      maxLength: 100,
      hint: profileErrorsElsewhere
        ? { hint: plain(`⚠️ ${profileErrorsElsewhere.join(" ")}`, 2000) }
        : hint(errors, "ticket", "Sent to the supplier as your reference."),
    }),
  );

  blocks.push(header("Recipient"));
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.firstName,
      label: "First name",
      value: draft.firstName,
      maxLength: 100,
      hint: hint(errors, "firstName"),
    }),
  );
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.lastName,
      label: "Last name",
      value: draft.lastName,
      maxLength: 100,
      hint: hint(errors, "lastName"),
    }),
  );
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.email,
      label: "E-mail",
      value: draft.email,
      placeholder: "name@example.com",
      maxLength: 254,
      hint: hint(errors, "email", "The carrier sends delivery notices here."),
    }),
  );
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.phone,
      label: "Phone",
      value: draft.phone,
      placeholder: "+31 20 123 4567",
      maxLength: 40,
      hint: hint(errors, "phone", "International format: + and the country code."),
    }),
  );

  blocks.push(header("Delivery"));
  const deliveryOptions = [
    { text: plain("Office"), value: "Office", description: plain("An office address; give the company", 75) },
    { text: plain("Home"), value: "Home", description: plain("The recipient's home address", 75) },
  ];
  const selectedDelivery = deliveryOptions.find((o) => o.value === draft.deliveryAt);
  blocks.push({
    type: "input",
    block_id: FIELD_BLOCK.deliveryAt,
    label: plain("Deliver to"),
    element: {
      type: "radio_buttons",
      action_id: ACTION.value,
      options: deliveryOptions,
      ...(selectedDelivery ? { initial_option: selectedDelivery } : {}),
    },
    ...hint(errors, "deliveryAt"),
  } as KnownBlock);
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.company,
      label: "Company",
      value: draft.company,
      optional: true,
      maxLength: 100,
      hint: hint(errors, "company", "Needed for Office deliveries."),
    }),
  );
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.attention,
      label: "Attention",
      value: draft.attention,
      optional: true,
      maxLength: 100,
      hint: hint(errors, "attention", "Person or desk the parcel is addressed to, if not the recipient."),
    }),
  );
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.address1,
      label: "Address line 1",
      value: draft.address1,
      placeholder: "Street and number",
      maxLength: 200,
      hint: hint(errors, "address1"),
    }),
  );
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.address2,
      label: "Address line 2",
      value: draft.address2,
      optional: true,
      placeholder: "Floor, suite, building",
      maxLength: 200,
      hint: hint(errors, "address2"),
    }),
  );
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.city,
      label: "City",
      value: draft.city,
      maxLength: 100,
      hint: hint(errors, "city"),
    }),
  );
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.zip,
      label: "Postal code",
      value: draft.zip,
      maxLength: 20,
      hint: hint(errors, "zip"),
    }),
  );
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.state,
      label: "State",
      value: draft.state,
      optional: true,
      placeholder: "CA, NSW…",
      maxLength: 100,
      hint: hint(errors, "state", "Required for the United States and Australia."),
    }),
  );
  blocks.push({
    type: "input",
    block_id: FIELD_BLOCK.country,
    label: plain("Country"),
    // Items limited to some countries: a new country rebuilds the form, which says under each line if it ships.
    ...(hasCountryLimits(customer) ? { dispatch_action: true } : {}),
    element: {
      type: "external_select",
      action_id: ACTION.country,
      min_query_length: 1,
      placeholder: plain("Type a country name or code", 150),
      ...(draft.country ? { initial_option: countryOption(draft.country) } : {}),
    },
    ...hint(errors, "country"),
  } as KnownBlock);
  blocks.push(...neededByBlocks(customer, draft, meta, errors));

  blocks.push(header("Items"));
  blocks.push(...lineBlocks(customer, draft, keys, errors));
  const actions = lineActions(customer, draft, keys);
  if (actions) blocks.push(actions);
  const total = linesTotal(customer, draft);
  if (total) blocks.push(total);

  blocks.push(header("References (optional)"));
  if (customer.config.externalDocumentNumber.allowManual) {
    blocks.push(
      textInput({
        blockId: FIELD_BLOCK.externalDocumentNumber,
        label: "Order number",
        value: draft.externalDocumentNumber,
        optional: true,
        maxLength: MAX_EDN_LENGTH,
        placeholder: "Your PO number",
        hint: hint(
          errors,
          "externalDocumentNumber",
          `Only ${TYPED_EDN_CHARACTERS}, at most ${MAX_EDN_LENGTH} characters. Leave empty to get one made from the ticket id.`,
        ),
      }),
    );
  }
  blocks.push(
    textInput({
      blockId: FIELD_BLOCK.shippingReference,
      label: "Shipping reference",
      value: draft.shippingReference,
      optional: true,
      maxLength: 100,
      hint: hint(errors, "shippingReference"),
    }),
  );

  if (blocks.length > MAX_VIEW_BLOCKS) {
    throw new RangeError(`the order modal has ${blocks.length} blocks; Slack takes ${MAX_VIEW_BLOCKS}`);
  }
  return {
    type: "modal",
    callback_id: CALLBACK.orderModal,
    title: plain(meta.o ? "Fix order" : "Order equipment", 24),
    submit: plain(meta.o ? "Resubmit" : "Place order", 24),
    close: plain("Cancel", 24),
    private_metadata: encodeMetadata({ ...meta, lk: keys }),
    blocks,
  };
}

/** A modal that only says something (not allowed, no profile here, something went wrong). */
export function buildNoticeModal(title: string, text: string): ModalView {
  return {
    type: "modal",
    callback_id: CALLBACK.notice,
    title: plain(title, 24),
    close: plain("Close", 24),
    blocks: [{ type: "section", text: mrkdwn(text) }],
  };
}
