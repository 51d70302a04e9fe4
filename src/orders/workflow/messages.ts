/**
 * The step's error messages. Slack shows them to the person running the workflow (and in the workflow's activity),
 * who did not write the inputs by hand: each message names the step's inputs as Workflow Builder shows them and says
 * what to do next.
 */

import { fieldErrorsFromDetails } from "../fields.ts";
import type { Order } from "../model/order.ts";
import type { StepInputNames } from "./ports.ts";

/** Slack does not document a limit for `error`; keep it readable in a Slackbot message. */
const MAX_MESSAGE_CHARS = 2500;

function joinProblems(problems: readonly string[]): string {
  const items = problems.map((p) => p.replace(/\.\s*$/, ""));
  let text = "";
  for (const [i, item] of items.entries()) {
    const next = text === "" ? item : `${text}; ${item}`;
    if (next.length > MAX_MESSAGE_CHARS - 200) return `${text}; and ${items.length - i} more`;
    text = next;
  }
  return text;
}

export function invalidInputsMessage(problems: readonly string[]): string {
  return `Place IT order cannot place this order. Fix ${problems.length === 1 ? "this input" : "these inputs"}: ${joinProblems(problems)}. Then edit the step in Workflow Builder (or correct the form or ticket that feeds it) and run the workflow again.`;
}

export function forbiddenMessage(message: string): string {
  return `Place IT order is not allowed here: ${message}`;
}

/** The profile has not opted in to Workflow Builder orders (`allowWorkflows`, docs/configuration.md). */
export function workflowsNotAllowedMessage(profileName: string): string {
  return `the ordering profile "${profileName}" does not allow Workflow Builder orders. An Order Desk admin can allow them by setting allowWorkflows: true on that profile in order-desk.config.yml and restarting Order Desk (see docs/configuration.md); until then, order with /order.`;
}

export function internalErrorMessage(): string {
  return "Order Desk could not store this order because of an internal error; nothing was ordered. Run the workflow again in a few minutes; if it keeps failing, ask your Order Desk admin to check its logs.";
}

const what = (order: Order) =>
  `order ${order.externalDocumentNumber}${order.customerReference ? ` for ${order.customerReference}` : ""}`;

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  if (m >= 1) return `${m} minute${m === 1 ? "" : "s"}`;
  return `${Math.max(1, Math.round(ms / 1000))} seconds`;
}

export function deadlineMessage(order: Order, retriedForMs: number, maybePlaced: boolean): string {
  const base = `The supplier could not be reached for ${minutes(retriedForMs)}, so Order Desk stopped trying: ${what(order)} was cancelled and will NOT be placed later. Run the workflow again when the supplier is back, or order with /order.`;
  return maybePlaced
    ? `${base} One of the attempts got no clear answer, so the supplier may have received it anyway: ask them whether they have order number ${order.externalDocumentNumber} before ordering again.`
    : base;
}

/** Why a placement ended without an order, from `order.failure` (as recorded by the placement job). */
export function placementFailedMessage(order: Order, names: Pick<StepInputNames, "describeErrors">): string {
  const failure = order.failure;
  const message = failure?.message;
  if (failure?.reason === "duplicate_number") {
    return `The supplier already has an order numbered ${order.externalDocumentNumber}, so ${what(order)} was not placed. If it is a different order, run the workflow again (a new number is generated); otherwise nothing needs doing.`;
  }
  if (failure?.reason === "rejected") {
    const problems = failure.details ? names.describeErrors(fieldErrorsFromDetails(failure.details)) : [];
    const reasons = problems.length > 0 ? joinProblems(problems) : (message ?? "no reason given");
    return `The supplier refused ${what(order)}: ${reasons}. Fix the inputs of the step and run the workflow again.`;
  }
  if (failure?.reason === "retries_exhausted") {
    return `The supplier stayed unavailable and Order Desk gave up retrying: ${what(order)} was not placed. Run the workflow again later, or order with /order.`;
  }
  return `${what(order)} could not be placed: ${message ?? "unknown error"}. Ask your Order Desk admin to check the order's message in Slack.`.replace(
    /^o/,
    "O",
  );
}
