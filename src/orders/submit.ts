/**
 * Accepting an order: authorise, check, then store the intent and enqueue its placement in ONE transaction, so an
 * order the agent was told about is never lost and never placed twice. The idempotency key (the modal's view id,
 * the workflow step's execution id) makes a double submit or a re-delivered request return the first order.
 */
import { randomUUID } from "node:crypto";
import { type Logger, pino } from "pino";
import type { Customer } from "../config/catalog.ts";
import type { Profile } from "../config/customer-schema.ts";
import { jobId } from "../jobs/ids.ts";
import type { Jobs } from "../jobs/jobs.ts";
import type { PlaceOrderJobData } from "../jobs/payloads.ts";
import { QUEUES } from "../jobs/queues.ts";
import type { Queryable, Store } from "../store/db.ts";
import { markAtRiskFromStart } from "../store/repositories/order-risk.ts";
import {
  findOrdersByExternalDocumentNumber,
  getOrderByIdempotencyKey,
  insertOrder,
  insertOrderIfNumberFree,
} from "../store/repositories/orders.ts";
import { checkOrderRequest } from "../supplier/rules.ts";
import type { CreateOrderRequest } from "../supplier/schema.ts";
import { approvalRequestFor, requestApproval } from "./approvals/request.ts";
import { type MatchedRule, matchApprovalRule } from "./approvals/rules.ts";
import type { Authorizer } from "./authorization.ts";
import { budgetGate, recordSpend } from "./budget/reserve.ts";
import { checkDraft } from "./check.ts";
import { type LateWarning, lateWarning } from "./dates/late-warning.ts";
import { newOrderDates, storedDates } from "./dates/order-dates.ts";
import type { OrderDraft } from "./draft.ts";
import { nextEdn } from "./edn.ts";
import { ednTakenErrors, isUniqueViolation, MAX_TAKEN_NUMBERS } from "./edn-taken.ts";
import { type FieldErrors, fieldErrorsFromDetails } from "./fields.ts";
import type { NewOrder, Order, OrderSource } from "./model/order.ts";
import { type OrderPricing, priceOrder, storedPricing } from "./pricing.ts";
import { draftToRequest } from "./request.ts";

export interface SubmitDeps {
  store: Store;
  jobs: Pick<Jobs, "send">;
  customer: Customer;
  authorizer: Authorizer;
  now?: () => Date;
  newOrderId?: () => string;
  logger?: Logger;
}

export interface OrderOrigin {
  source: OrderSource;
  /** Slack user id of whoever asked (a workflow's user, or the workflow's app for a form). */
  requestedBy: string;
  /** Same key twice → one order: `view:<view id>`, `function:<execution id>`. */
  idempotencyKey: string;
  teamId?: string | undefined;
  /**
   * Where the order's message goes; must be one of the profile's channels. `null` only for an order from App Home,
   * whose message goes to the requester's DM (every profile the requester may use is on offer there). Required,
   * so that a caller cannot skip the channel rule by leaving it out.
   */
  channelId: string | null;
  /** For the message shortcut: the ticket message, whose thread the order's message joins. */
  threadTs?: string | undefined;
  /** Workflow step context (execution id…), kept on the order. */
  workflow?: object | undefined;
  /**
   * A form: warn when the order would arrive after its needed-by date, unless this warning (its key) was shown
   * already. Without it (a workflow step) a late order is placed at risk at once.
   */
  lateWarning?: { acknowledged: string | undefined } | undefined;
}

/** The `place-order` job's payload (its schema: jobs/payloads.ts). */
export type { PlaceOrderJobData } from "../jobs/payloads.ts";

export type SubmitResult =
  | { status: "queued"; order: Order; created: boolean }
  | { status: "invalid"; draft: OrderDraft; errors: FieldErrors; lateWarning?: LateWarning }
  | { status: "forbidden"; message: string };

/** Same-channel rule: a profile is used only where the customer file says (see `OrderOrigin.channelId`). */
function profileProblem(customer: Customer, draft: OrderDraft, channelId: string | null): FieldErrors | null {
  const profile = customer.profile(draft.profile.trim());
  if (!profile || channelId === null || profile.channels.includes(channelId)) return null;
  return {
    profile: [
      `The profile "${profile.name}" is not used in this channel. Order from one of its channels, or ask an admin to add this channel to it.`,
    ],
  };
}

export async function authorize(
  deps: SubmitDeps,
  profile: Profile,
  userId: string,
): Promise<{ status: "forbidden"; message: string } | null> {
  const result = await deps.authorizer.check(profile, userId);
  return result.allowed ? null : { status: "forbidden", message: result.message };
}

/** A submission that passed the rules and the authorization check: what storing it needs. */
export interface AcceptedSubmission {
  profile: Profile;
  /** The checked, normalised draft. */
  draft: OrderDraft;
  origin: OrderOrigin;
  /** When it was checked: the date a document number pattern's `{date}` takes. */
  at: Date;
  /**
   * The request as the supplier's rules passed it; when the number is ours to generate it carries a stand-in
   * (the number `1` of its pattern), replaced when the number is taken and checked again.
   */
  request: CreateOrderRequest;
  /** The profile's approval rule the order matched: it waits for an approver instead of being placed. */
  approval?: MatchedRule | null;
  /** What it costs at the customer's prices (./pricing.ts); null without prices. */
  pricing?: OrderPricing | null;
}

export async function submitOrder(
  deps: SubmitDeps,
  draft: OrderDraft,
  origin: OrderOrigin,
): Promise<SubmitResult> {
  const accepted = await acceptSubmission(deps, draft, origin);
  if ("status" in accepted) return accepted;
  return storeSubmission(deps, accepted);
}

/** The rules and the authorization check, before anything is written. */
export async function acceptSubmission(
  deps: SubmitDeps,
  draft: OrderDraft,
  origin: OrderOrigin,
): Promise<AcceptedSubmission | Exclude<SubmitResult, { status: "queued" }>> {
  const at = (deps.now ?? (() => new Date()))();
  const profileErrors = profileProblem(deps.customer, draft, origin.channelId);
  if (profileErrors) return { status: "invalid", draft, errors: profileErrors };
  const checked = checkDraft(draft, deps.customer, { now: at });
  if (!checked.ok) {
    // Say "not allowed" before listing field errors: fixing them would be wasted effort.
    const profile = deps.customer.profile(checked.draft.profile);
    const forbidden = profile ? await authorize(deps, profile, origin.requestedBy) : null;
    return forbidden ?? { status: "invalid", draft: checked.draft, errors: checked.errors };
  }
  const forbidden = await authorize(deps, checked.profile, origin.requestedBy);
  if (forbidden) return forbidden;
  if (origin.lateWarning) {
    const warning = lateWarning(deps.customer.config, checked.draft.neededBy, checked.request, at);
    if (warning && warning.key !== origin.lateWarning.acknowledged) {
      const errors = { neededBy: [warning.text] };
      return { status: "invalid", draft: checked.draft, errors, lateWarning: warning };
    }
  }
  const pricing = priceOrder(checked.request.orderLines, deps.customer);
  const amounts = storedPricing(pricing);
  const approval = matchApprovalRule(checked.profile.approval, checked.request, deps.customer, amounts ?? {});
  return {
    profile: checked.profile,
    draft: checked.draft,
    origin,
    at,
    request: checked.request,
    approval,
    pricing,
  };
}

/** Stores one accepted submission and enqueues its placement, in one transaction of its own. */
export async function storeSubmission(
  deps: Pick<SubmitDeps, "store" | "jobs" | "customer" | "newOrderId" | "logger">,
  submission: AcceptedSubmission,
): Promise<SubmitResult> {
  const logger = deps.logger ?? pino({ level: "silent" });
  const { profile, draft: clean, origin, at } = submission;
  const pattern = deps.customer.config.externalDocumentNumber.pattern;
  const key = origin.idempotencyKey;
  try {
    return await deps.store.transaction(async (tx): Promise<SubmitResult> => {
      // The budget's lock first (src/orders/budget/reserve.ts): its check and this order's insert are one decision.
      const total = storedPricing(submission.pricing ?? null)?.total;
      const gate = await budgetGate(tx, deps.customer.config, profile, total, at);
      if (gate.refused)
        return (await repeated(tx, key)) ?? { status: "invalid", draft: clean, errors: gate.refused };
      const accepted = { ...submission, approval: submission.approval ?? gate.overBudget };
      // No read of the idempotency key up front: a first submit (the common case) needs none, and a repeated
      // one is caught by the INSERT's conflict below, which rolls back so no document number is used up.
      let edn = clean.externalDocumentNumber;
      if (edn !== "") {
        const sameNumber = await findOrdersByExternalDocumentNumber(tx, edn);
        const mine = sameNumber.find((o) => o.idempotencyKey === key);
        if (mine) return { status: "queued", order: mine, created: false };
        if (sameNumber.some((o) => o.profile === profile.name)) {
          return (
            (await repeated(tx, key)) ?? { status: "invalid", draft: clean, errors: ednTakenErrors(edn) }
          );
        }
      }
      const generated = edn === "";
      const id = deps.newOrderId?.() ?? randomUUID();
      let order: Order | null = null;
      // A generated number an agent once typed by hand is skipped: the counter moves on to the next one.
      for (let tries = 0; order === null; tries++) {
        if (tries === MAX_TAKEN_NUMBERS) {
          throw new Error(`the next ${MAX_TAKEN_NUMBERS} document numbers for ${clean.ticket} are all taken`);
        }
        if (generated) {
          edn = await nextEdn(tx, pattern, { ticket: clean.ticket, profile: profile.name, now: at });
        }
        const final = checkOrderRequest(
          draftToRequest(clean, profile, edn, deps.customer.config.expressOrderType?.type),
        );
        if (!final.ok) {
          const earlier = await repeated(tx, key);
          if (earlier) throw new AlreadySubmitted(earlier.order);
          return { status: "invalid", draft: clean, errors: fieldErrorsFromDetails(final.details) };
        }
        const dates = newOrderDates(deps.customer.config, clean, final.value, at);
        const row = { ...newOrderRow(accepted, id, edn, final.value), ...storedDates(dates) };
        const stored = generated ? await insertOrderIfNumberFree(tx, row) : await insertOrder(tx, row);
        if ("taken" in stored) continue;
        if (!stored.created) throw new AlreadySubmitted(stored.order);
        order = dates.atRisk ? await markAtRiskFromStart(tx, stored.order, at) : stored.order;
      }
      await recordSpend(tx, deps.jobs, order, deps.customer.config, gate.decision, at);
      if (accepted.approval && profile.approval) {
        // Waits for an approver: no placement job until one approves (src/orders/approvals/decide.ts).
        const request = approvalRequestFor(profile.approval, accepted.approval, at, gate.decision);
        const waiting = await requestApproval(tx, deps.jobs, order as Order, request);
        logger.info({ orderId: waiting.id, rule: request.rule }, "order stored; waiting for approval");
        return { status: "queued", order: waiting, created: true };
      }
      await deps.jobs.send(QUEUES.placeOrder, placeOrderData(order.id, at), {
        id: placeOrderJobId(order.id),
        tx,
      });
      logQueued(logger, order);
      return { status: "queued", order, created: true };
    });
  } catch (error) {
    if (error instanceof AlreadySubmitted) return { status: "queued", order: error.order, created: false };
    // Two agents typing the same number at the same instant: the unique index decides.
    if (isUniqueViolation(error) && clean.externalDocumentNumber !== "") {
      const again = await getOrderByIdempotencyKey(deps.store, key);
      if (again) return { status: "queued", order: again, created: false };
      return { status: "invalid", draft: clean, errors: ednTakenErrors(clean.externalDocumentNumber) };
    }
    throw error;
  }
}

/** The row of an accepted submission, with its document number and the request as it will be sent. */
function newOrderRow(
  accepted: AcceptedSubmission,
  id: string,
  externalDocumentNumber: string,
  request: CreateOrderRequest,
): NewOrder {
  const { origin } = accepted;
  // The lines are the checked request's (the document number is all that changed since).
  const pricing = storedPricing(accepted.pricing ?? null);
  return {
    id,
    profile: accepted.profile.name,
    externalDocumentNumber,
    customerReference: accepted.draft.ticket,
    requestedBy: origin.requestedBy,
    source: origin.source,
    idempotencyKey: origin.idempotencyKey,
    slackTeamId: origin.teamId ?? null,
    slackChannelId: origin.channelId ?? null,
    slackThreadTs: origin.threadTs ?? null,
    request,
    draft: accepted.draft,
    workflow: origin.workflow ?? null,
    ...(pricing ?? {}),
    ...(accepted.approval ? { status: "awaiting_approval" as const } : {}),
  };
}

/** The id of an order's first placement job (a resubmission's has its own). */
export function placeOrderJobId(orderId: string): string {
  return jobId(QUEUES.placeOrder, orderId);
}

/** A placement job's payload, queued `at` by the app's clock (what a workflow step's deadline is compared with). */
export function placeOrderData(orderId: string, at: Date): PlaceOrderJobData {
  return { orderId, queuedAt: at.toISOString() };
}

function logQueued(logger: Logger, order: Order): void {
  logger.info(
    {
      orderId: order.id,
      externalDocumentNumber: order.externalDocumentNumber,
      profile: order.profile,
      source: order.source,
    },
    "order stored and queued for placement",
  );
}

/** The same submission came before (a double click, Slack's retry): its order, looked up only on rare paths. */
async function repeated(
  q: Queryable,
  key: string,
): Promise<{ status: "queued"; order: Order; created: false } | null> {
  const order = await getOrderByIdempotencyKey(q, key);
  return order ? { status: "queued", order, created: false } : null;
}

/** Thrown inside the submit transaction to roll back what a repeated submission did (a document number). */
class AlreadySubmitted extends Error {
  constructor(readonly order: Order) {
    super("this submission was stored before");
  }
}
