/**
 * What every admin button on an alert or on App Home does: check the clicker is an admin (on the server, every
 * time) and run the action once (src/orders/operations/act.ts), within the click's bound and before the ack, so an
 * acked click is in the database; then ack, and tell the clicker: ephemeral under the alert, a DM from App Home.
 * The alert's rewrite (who did what and when) is a job of the action's transaction. A click that could not be
 * decided in time, or a Slack call that fails, still leaves the admin told something.
 */
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { checkAdmin } from "../orders/admins.ts";
import { type ClickDeadline, decideWithin } from "../orders/click-deadline.ts";
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

/** A click not decided within its bound: rolled back, so nothing changed, and the clicker is asked to click again. */
export function notRecorded(again: string): string {
  return `Order Desk was too busy to record your click in time, so it was not recorded and nothing was changed. ${again}`;
}

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

/** After the action: the admin is told (the alert's rewrite is the action's job, ./orders/operations/outcome-job.ts). */
export async function reportOutcome(
  ctx: SlackContext,
  client: WebClient,
  target: NoticeTarget,
  outcome: ActionOutcome,
  refreshHome: boolean,
): Promise<void> {
  await tell(ctx, client, target, outcomeAnswer(outcome));
  if (refreshHome) {
    await publishHome(ctx, client, target.userId).catch((error: unknown) =>
      ctx.logger.warn({ err: error, userId: target.userId }, "could not refresh the admin's App Home"),
    );
  }
}

type Decide = (request: { itemId: string; by: string; deadline: ClickDeadline }) => Promise<ActionOutcome>;

/** A button that acts at once (Retry now, Mark handled, Retry posting, Ignore): decided, then acked. */
export function operatorButton(ctx: SlackContext, action: OperatorAction) {
  return decidedButton(ctx, action, (request) =>
    runOperatorAction(ctx.operators.deps, { ...request, action }),
  );
}

/** An admin button decided before its ack, within the click's bound: `decide` runs once per click. */
export function decidedButton(ctx: SlackContext, action: string, decide: Decide) {
  return async (args: OperatorClickArgs): Promise<void> => {
    const { ack, body, client } = args;
    const target = noticeTarget(args);
    const itemId = itemIdOf(args.action.value);
    const by = body.user.id;
    let decided: Awaited<ReturnType<typeof decideWithin<{ refused: string } | { outcome: ActionOutcome }>>>;
    try {
      decided = await decideWithin(
        ctx.clickDecisionMs,
        async (deadline) => {
          const refused = await refusedToNonAdmin(ctx, by);
          if (refused) return { refused };
          return { outcome: await decide({ itemId, by, deadline }) };
        },
        (error) => ctx.logger.error({ err: error, itemId, action }, "admin action failed after its bound"),
      );
    } catch (error) {
      await ack();
      ctx.logger.error({ err: error, itemId, action }, "admin action failed");
      await tell(ctx, client, target, STORE_DOWN);
      return;
    }
    await ack();
    if (!decided.decided) {
      ctx.logger.warn(
        { itemId, action, userId: by, boundMs: ctx.clickDecisionMs },
        "admin click not decided in time",
      );
      await tell(ctx, client, target, notRecorded("Click the button again."));
      return;
    }
    if ("refused" in decided.value) {
      await tell(ctx, client, target, decided.value.refused);
      return;
    }
    const { outcome } = decided.value;
    ctx.logger.info({ itemId, action, userId: by, outcome: outcome.kind }, "admin action");
    await reportOutcome(ctx, client, target, outcome, body.view?.type === "home");
  };
}
