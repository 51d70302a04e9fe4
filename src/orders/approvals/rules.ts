/**
 * Which orders need approval: the first rule of the profile's `approval.when` that the checked request matches,
 * with a phrase naming it for people ("a Home delivery", "more than 3 units"), shown on the order's message and in
 * the approvers' DMs so they know why they are asked.
 */
import type { ApprovalConfig, ApprovalRule } from "../../config/approval-schema.ts";
import type { Bundle, CatalogItem } from "../../config/customer-schema.ts";
import type { CreateOrderRequest } from "../../supplier/schema.ts";
import { isMoreThan, moneyText } from "../budget/format.ts";

export interface MatchedRule {
  /** The rule's key in the customer file (`deliveryAt`, `quantityOver`…). */
  rule: keyof ApprovalRule;
  /** The rule in words, e.g. "a Home delivery". */
  phrase: string;
}

export interface RuleCatalog {
  item(itemNumber: string): CatalogItem | undefined;
  /** `locale`: the customer file's, which amounts in a rule's phrase are written in. */
  readonly config: { readonly bundles: readonly Bundle[]; readonly locale?: string | undefined };
}

type Request = Pick<CreateOrderRequest, "orderLines"> & {
  shipping: Pick<CreateOrderRequest["shipping"], "deliveryAt">;
};

/** What rules on amounts read: the order's total at the customer's prices (null without prices). */
export interface OrderAmounts {
  total?: string | null | undefined;
  currency?: string | null | undefined;
}

function list(names: readonly string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

function itemName(catalog: RuleCatalog, itemNumber: string): string {
  const item = catalog.item(itemNumber);
  return item ? `${item.name} (${itemNumber})` : itemNumber;
}

function match(
  rule: ApprovalRule,
  request: Request,
  catalog: RuleCatalog,
  amounts: OrderAmounts,
): string | null {
  const lines = request.orderLines;
  if (rule.always) return "every order of this profile";
  if (rule.itemNumbers) {
    const wanted = new Set(rule.itemNumbers);
    const hits = [...new Set(lines.map((l) => l.itemNumber).filter((n) => wanted.has(n)))];
    return hits.length > 0 ? list(hits.map((n) => itemName(catalog, n))) : null;
  }
  if (rule.categories) {
    const wanted = new Set(rule.categories);
    const hits = [
      ...new Set(
        lines
          .map((l) => catalog.item(l.itemNumber)?.category)
          .filter((c): c is string => !!c && wanted.has(c)),
      ),
    ];
    return hits.length > 0 ? `${hits.length === 1 ? "an item" : "items"} in ${list(hits)}` : null;
  }
  if (rule.quantityOver !== undefined) {
    const units = lines.reduce((sum, l) => sum + l.quantity, 0);
    return units > rule.quantityOver ? `${units} units (more than ${rule.quantityOver})` : null;
  }
  if (rule.deliveryAt) {
    return request.shipping.deliveryAt === rule.deliveryAt ? `a ${rule.deliveryAt} delivery` : null;
  }
  if (rule.orderTotalOver !== undefined) {
    const { total, currency } = amounts;
    if (total == null || !currency || !isMoreThan(total, rule.orderTotalOver)) return null;
    const locale = catalog.config.locale;
    return `a total of ${moneyText(total, currency, locale)} (more than ${moneyText(rule.orderTotalOver, currency, locale)})`;
  }
  // Known only under the budget's lock, in the accepting transaction (src/orders/budget/reserve.ts).
  if (rule.overBudget) return null;
  if (rule.outsideBundles) {
    const inBundles = new Set(catalog.config.bundles.flatMap((b) => b.lines.map((l) => l.itemNumber)));
    const outside = [...new Set(lines.map((l) => l.itemNumber).filter((n) => !inBundles.has(n)))];
    return outside.length > 0
      ? `${list(outside.map((n) => itemName(catalog, n)))} outside the standard kits`
      : null;
  }
  return null;
}

/** The first rule of `approval.when` the request matches, or null when the order needs no approval. */
export function matchApprovalRule(
  approval: ApprovalConfig | undefined,
  request: Request,
  catalog: RuleCatalog,
  amounts: OrderAmounts = {},
): MatchedRule | null {
  for (const rule of approval?.when ?? []) {
    const phrase = match(rule, request, catalog, amounts);
    if (phrase !== null) {
      const key = Object.keys(rule).find((k) => rule[k as keyof ApprovalRule] !== undefined);
      return { rule: key as keyof ApprovalRule, phrase };
    }
  }
  return null;
}
