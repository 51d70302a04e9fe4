/**
 * What every admin button on an alert or on App Home does: ack, check the clicker is an admin (on the server,
 * every time), run the action once (src/orders/operations/act.ts), rewrite the alert with who did what and when,
 * and tell the clicker: ephemeral under the alert, a DM from App Home. A Slack call that fails still leaves the
 * admin told something.
 */
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { checkAdmin } from "../orders/admins.ts";
import { runOperatorAction } from "../orders/operations/act.ts";
import type { ActionOutcome, OperatorAction } from "../orders/operations/types.ts";
import { outcomeAnswer } from "./blocks/attention.ts";
import type { SlackContext } from "./context.ts";
import { publishHome } from "./home.ts";
import type { WebClient } from "./outbound/index.ts";
import { type NoticeTarget, notifyUser } from "./view-failures.ts";

export type OperatorClickArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/** Item ids are UUIDs; anything much longer is not one of ours. */
const MAX_ITEM_ID = 100;

export const STORE_DOWN =
  "Order Desk could not reach its database just now, so nothing was changed. Try again in a minute.";

export function noticeTarget(args: Pick<OperatorClickArgs, "body" | "respond">): NoticeTarget {
  // App Home has no response_url: the answer then goes to the admin's DM with the app.
  return { userId: args.body.user.id, ...(args.body.response_url ? { respond: args.respond } : {}) };
}

export async function tell(
  ctx: SlackContext,
  client: WebClient,
  target: NoticeTarget,
  text: string,
): Promise<void> {
  try {
    await notifyUser(client, target, text, ctx.logger);
  } catch (error) {
    ctx.logger.error(
      { err: error, userId: target.userId },
      "could not tell the admin the outcome of their click",
    );
  }
}

/** Null when the clicker is an admin; else what to tell them (nothing was looked at or changed). */
export async function refusedToNonAdmin(ctx: SlackContext, userId: string): Promise<string | null> {
  const admin = await checkAdmin(ctx.operators.membership, ctx.customer.config, userId);
  if (admin.allowed) return null;
  ctx.logger.info({ userId, reason: admin.reason }, "admin action refused: the user is not an admin");
  return admin.message;
}

export function itemIdOf(value: unknown): string {
  return typeof value === "string" && value.length <= MAX_ITEM_ID ? value : "";
}

/** After the action: the alert shows the outcome (once: only the click that did it), the admin is told. */
export async function reportOutcome(
  ctx: SlackContext,
  client: WebClient,
  target: NoticeTarget,
  outcome: ActionOutcome,
  refreshHome: boolean,
): Promise<void> {
  let note = "";
  if (outcome.kind === "done" || outcome.kind === "obsolete") {
    try {
      await ctx.operators.alerts.showOutcome(outcome.item);
    } catch (error) {
      ctx.logger.warn({ err: error, itemId: outcome.item.id }, "could not update the admin alert");
      note =
        " The alert in the admin channel could not be updated to say so (Slack refused or did not answer).";
    }
  }
  await tell(ctx, client, target, `${outcomeAnswer(outcome)}${note}`);
  if (refreshHome) {
    await publishHome(ctx, client, target.userId).catch((error: unknown) =>
      ctx.logger.warn({ err: error, userId: target.userId }, "could not refresh the admin's App Home"),
    );
  }
}

/** A button that acts at once (Retry now, Mark handled, Retry posting, Ignore). */
export function operatorButton(ctx: SlackContext, action: OperatorAction) {
  return async (args: OperatorClickArgs): Promise<void> => {
    const { ack, body, client } = args;
    await ack();
    const target = noticeTarget(args);
    const refused = await refusedToNonAdmin(ctx, body.user.id);
    if (refused) {
      await tell(ctx, client, target, refused);
      return;
    }
    const itemId = itemIdOf(args.action.value);
    let outcome: ActionOutcome;
    try {
      outcome = await runOperatorAction(ctx.operators.deps, { itemId, action, by: body.user.id });
    } catch (error) {
      ctx.logger.error({ err: error, itemId, action }, "admin action failed");
      await tell(ctx, client, target, STORE_DOWN);
      return;
    }
    ctx.logger.info({ itemId, action, userId: body.user.id, outcome: outcome.kind }, "admin action");
    await reportOutcome(ctx, client, target, outcome, body.view?.type === "home");
  };
}
