/**
 * The modal's "Items" section: three inputs per line and the row that adds, removes and fills lines. Each line's
 * blocks are keyed by the line's key, not its position, so that removing line 2 does not hand line 3's typed
 * values to the line that takes its place when the view is rebuilt.
 */
import type { types } from "@slack/bolt";
import type { Customer } from "../../config/catalog.ts";
import { shipsToProblem } from "../../orders/check.ts";
import { formatMoney } from "../../orders/currency.ts";
import type { OrderDraft } from "../../orders/draft.ts";
import type { FieldErrors } from "../../orders/fields.ts";
import { bundlePrice, priceDraftLines } from "../../orders/pricing.ts";
import { ACTION, BLOCK, LINE_BLOCK } from "./ids.ts";
import { hint } from "./modal-inputs.ts";
import { draftTotalText } from "./money.ts";
import { mrkdwn, plain, truncate } from "./text.ts";

type KnownBlock = types.KnownBlock;
type Option = types.PlainTextOption;

/** The most lines the form shows (order-modal.ts: the view's 100-block budget, with every optional block). */
export const MAX_MODAL_LINES = 24;

/** "LAP-14-PRO — Laptop 14" Pro" within the 75 characters of an option. */
export function itemOption(customer: Customer, itemNumber: string): Option {
  const item = customer.item(itemNumber);
  const label = item ? `${item.name} (${item.itemNumber})` : itemNumber;
  return { text: plain(label, 75), value: truncate(itemNumber, 150) };
}

/** Items limited to some countries: choosing an item or the country rebuilds the form, to say so under the line. */
export function hasCountryLimits(customer: Customer): boolean {
  return customer.config.catalog.some((item) => item.countries !== undefined);
}

/** Under a line whose item does not ship to the chosen country: the words submitting would refuse it with. */
function shipsToNote(customer: Customer, itemNumber: string, country: string): string | undefined {
  const item = itemNumber ? customer.item(itemNumber) : undefined;
  return (item && shipsToProblem(item, country)) ?? undefined;
}

export function lineBlocks(
  customer: Customer,
  draft: OrderDraft,
  keys: readonly string[],
  errors: FieldErrors | undefined,
): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  // With prices, choosing an item or typing a quantity tells us, and the total under the lines follows it; with
  // items limited to some countries, choosing an item tells us too.
  const priced = customer.config.currency !== undefined;
  const limited = hasCountryLimits(customer);
  keys.forEach((key, i) => {
    const line = draft.lines[i] ?? { itemNumber: "", quantity: "1", comment: "" };
    const n = i + 1;
    const note = shipsToNote(customer, line.itemNumber, draft.country);
    blocks.push({
      type: "input",
      block_id: LINE_BLOCK.item(key),
      label: plain(keys.length > 1 ? `Item ${n}` : "Item"),
      ...(priced || limited ? { dispatch_action: true } : {}),
      element: {
        type: "external_select",
        action_id: ACTION.lineItem,
        min_query_length: 0,
        placeholder: plain("Search the catalog: laptop, monitor…", 150),
        ...(line.itemNumber ? { initial_option: itemOption(customer, line.itemNumber) } : {}),
      },
      ...hint(errors, `lines.${i}.itemNumber`, note && `⚠️ ${note}`),
    } as KnownBlock);
    blocks.push({
      type: "input",
      block_id: LINE_BLOCK.quantity(key),
      label: plain(keys.length > 1 ? `Quantity ${n}` : "Quantity"),
      ...(priced ? { dispatch_action: true } : {}),
      element: {
        type: "number_input",
        action_id: ACTION.lineQuantity,
        is_decimal_allowed: false,
        min_value: "1",
        max_value: "999",
        ...(priced ? { dispatch_action_config: { trigger_actions_on: ["on_character_entered"] } } : {}),
        ...(line.quantity ? { initial_value: truncate(line.quantity, 9) } : {}),
      },
      ...hint(errors, `lines.${i}.quantity`),
    } as KnownBlock);
    blocks.push({
      type: "input",
      block_id: LINE_BLOCK.comment(key),
      optional: true,
      label: plain(keys.length > 1 ? `Comment ${n}` : "Comment"),
      element: {
        type: "plain_text_input",
        action_id: ACTION.lineComment,
        max_length: 500,
        placeholder: plain("For example: asset-tag before shipping", 150),
        ...(line.comment ? { initial_value: truncate(line.comment, 500) } : {}),
      },
      ...hint(errors, `lines.${i}.comment`),
    } as KnownBlock);
  });
  return blocks;
}

export function lineActions(
  customer: Customer,
  draft: OrderDraft,
  keys: readonly string[],
): KnownBlock | null {
  const elements: unknown[] = [];
  if (keys.length < MAX_MODAL_LINES) {
    elements.push({ type: "button", action_id: ACTION.addLine, text: plain("Add line", 75), value: "add" });
  }
  if (keys.length > 1) {
    elements.push({
      type: "static_select",
      action_id: ACTION.removeLine,
      placeholder: plain("Remove line…", 150),
      options: keys.map((key, i) => {
        const itemNumber = draft.lines[i]?.itemNumber ?? "";
        const name = itemNumber ? (customer.item(itemNumber)?.name ?? itemNumber) : "(no item yet)";
        return { text: plain(`Line ${i + 1}: ${name}`, 75), value: key };
      }),
    });
  }
  const bundles = customer.config.bundles.slice(0, 100);
  if (bundles.length > 0 && keys.length < MAX_MODAL_LINES) {
    const { currency, locale } = customer.config;
    elements.push({
      type: "static_select",
      action_id: ACTION.addBundle,
      placeholder: plain("Add bundle…", 150),
      options: bundles.map((b, i) => {
        // With prices, the bundle's (the sum of its lines) leads its description, which is cut to fit.
        const price = bundlePrice(b, customer);
        const amount = price && currency ? formatMoney(price, currency, locale) : null;
        const description = [amount, b.description].filter(Boolean).join(" · ");
        return {
          text: plain(b.name, 75),
          value: String(i),
          ...(description ? { description: plain(description, 75) } : {}),
        };
      }),
    });
  }
  if (elements.length === 0) return null;
  return { type: "actions", block_id: BLOCK.lineActions, elements } as KnownBlock;
}

/**
 * The order's total under the lines, of what is filled in so far (a line without an item, or with a quantity
 * still being typed, counts for nothing yet); null without prices.
 */
export function linesTotal(customer: Customer, draft: OrderDraft): KnownBlock | null {
  const pricing = priceDraftLines(draft.lines, customer);
  if (!pricing) return null;
  const lines = pricing.lines.length;
  const text =
    lines === 0
      ? "*Total:* choose an item to see the total"
      : `*Total: ${draftTotalText(pricing, customer.config.locale)}*${lines < draft.lines.length ? ` (${lines} of ${draft.lines.length} lines)` : ""}`;
  return { type: "context", block_id: BLOCK.linesTotal, elements: [mrkdwn(text)] } as KnownBlock;
}
