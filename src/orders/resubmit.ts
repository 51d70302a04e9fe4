/**
 * "Fix and resubmit": the corrected draft replaces the rejected request of the same order (same message, same
 * thread) and placement is enqueued again, in one transaction with the budget's check, the approval rules and the
 * order's dates (its needed-by date and expected delivery recomputed from the corrected draft).
 */
import { pino } from "pino";
import { jobId } from "../jobs/ids.ts";
import { QUEUES } from "../jobs/queues.ts";
import { setResubmittedDates } from "../store/repositories/order-risk.ts";
import { getOrder, getOrderForUpdate, resetForResubmit } from "../store/repositories/orders.ts";
import { checkOrderRequest } from "../supplier/rules.ts";
import { approvalForResubmission } from "./approvals/request.ts";
import { budgetGate, recordSpend } from "./budget/reserve.ts";
import { checkDraft } from "./check.ts";
import { type LateWarning, lateWarning } from "./dates/late-warning.ts";
import { newOrderDates, storedDates } from "./dates/order-dates.ts";
import type { OrderDraft } from "./draft.ts";
import { nextEdn } from "./edn.ts";
import { ednTaken, ednTakenErrors } from "./edn-taken.ts";
import { OrderNotFoundError, OrderNotResubmittableError } from "./errors.ts";
import { type FieldErrors, fieldErrorsFromDetails } from "./fields.ts";
import { canResubmit, type Order } from "./model/order.ts";
import { priceOrder, storedPricing } from "./pricing.ts";
import { draftToRequest } from "./request.ts";
import { authorize, type OrderOrigin, placeOrderData, type SubmitDeps } from "./submit.ts";

export type ResubmitResult =
  | { status: "queued"; order: Order }
  | { status: "invalid"; draft: OrderDraft; errors: FieldErrors; lateWarning?: LateWarning }
  | { status: "forbidden"; message: string };

/**
 * "Fix and resubmit": the corrected draft replaces the rejected request of the same order (same message, same
 * thread) and placement is enqueued again. The order keeps its document number unless the supplier said it is
 * taken (DUPLICATE_ORDER) or the agent typed another one.
 */
export async function resubmitOrder(
  deps: SubmitDeps,
  orderId: string,
  draft: OrderDraft,
  /** Who resubmits: must be allowed to order with the order's profile; recorded as `resubmittedBy`. */
  resubmittedBy: string,
  /** The form warns, as for a new order, when the corrected order would arrive after its needed-by date. */
  warning: OrderOrigin["lateWarning"] = undefined,
): Promise<ResubmitResult> {
  const now = deps.now ?? (() => new Date());
  const stored = await getOrder(deps.store, orderId);
  if (!stored) throw new OrderNotFoundError(orderId);
  // The profile is part of the order's identity (its document number is unique per profile): it stays.
  const checked = checkDraft({ ...draft, profile: stored.profile }, deps.customer, { now: now() });
  if (!checked.ok) return { status: "invalid", draft: checked.draft, errors: checked.errors };
  const forbidden = await authorize(deps, checked.profile, resubmittedBy);
  if (forbidden) return forbidden;
  const { profile, draft: clean } = checked;
  const late = warning && lateWarning(deps.customer.config, clean.neededBy, checked.request, now());
  if (late && late.key !== warning?.acknowledged) {
    return { status: "invalid", draft: clean, errors: { neededBy: [late.text] }, lateWarning: late };
  }
  const logger = deps.logger ?? pino({ level: "silent" });
  const pricing = storedPricing(priceOrder(checked.request.orderLines, deps.customer));
  return deps.store.transaction(async (tx): Promise<ResubmitResult> => {
    // The budget's lock first, as for a new order: a resubmitted order counts again in this month once accepted.
    const gate = await budgetGate(tx, deps.customer.config, profile, pricing?.total, now());
    if (gate.refused) return { status: "invalid", draft: clean, errors: gate.refused };
    const order = await getOrderForUpdate(tx, orderId);
    if (!order) throw new OrderNotFoundError(orderId);
    if (!canResubmit(order)) {
      throw new OrderNotResubmittableError(orderId, order.status);
    }
    let edn = clean.externalDocumentNumber;
    if (edn !== "") {
      if (await ednTaken(tx, profile.name, edn, order.id)) {
        return { status: "invalid", draft: clean, errors: ednTakenErrors(edn) };
      }
    } else if (order.failure?.reason === "duplicate_number") {
      edn = await nextEdn(tx, deps.customer.config.externalDocumentNumber.pattern, {
        ticket: clean.ticket,
        profile: profile.name,
        now: now(),
      });
    } else {
      edn = order.externalDocumentNumber;
    }
    const final = checkOrderRequest(
      draftToRequest(clean, profile, edn, deps.customer.config.expressOrderType?.type),
    );
    if (!final.ok) return { status: "invalid", draft: clean, errors: fieldErrorsFromDetails(final.details) };
    const reset = await resetForResubmit(tx, order.id, {
      resubmittedBy,
      request: final.value,
      draft: clean,
      externalDocumentNumber: edn,
      pricing: storedPricing(priceOrder(final.value.orderLines, deps.customer)),
    });
    if (!reset) throw new OrderNotResubmittableError(orderId, order.status);
    // Never placed (only a failed or rejected order is resubmitted), so nobody was told it was at risk: its dates
    // are those of a new order placed now; placement tells the risk, if any (updates/placed-at-risk.ts).
    const dates = newOrderDates(deps.customer.config, clean, final.value, now());
    const dated = await setResubmittedDates(tx, order.id, {
      ...storedDates(dates),
      atRiskSince: dates.atRisk ? now() : null,
    });
    await recordSpend(tx, deps.jobs, dated ?? reset, deps.customer.config, gate.decision, now());
    // The corrected order meets the approval rules again (a rejected one is asked for again if it still needs it).
    const asked = await approvalForResubmission(tx, deps, dated ?? reset, profile, now(), gate);
    if (asked) return { status: "queued", order: asked };
    // A new job id per resubmission (the previous job may still be listed as completed or failed).
    await deps.jobs.send(QUEUES.placeOrder, placeOrderData(order.id, now()), {
      id: jobId(QUEUES.placeOrder, order.id, reset.statusAt.toISOString()),
      tx,
    });
    logger.info(
      {
        orderId: order.id,
        requestedBy: order.requestedBy,
        resubmittedBy,
        byRequester: resubmittedBy === order.requestedBy,
      },
      "order resubmitted",
    );
    return { status: "queued", order: dated ?? reset };
  });
}
