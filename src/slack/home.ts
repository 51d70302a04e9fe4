/** Publishing App Home's "My orders" for a user (on app_home_opened, and by anyone whose change shows there). */
import { type Logger, pino } from "pino";
import { checkAdmin } from "../orders/admins.ts";
import type { ApprovalDeps } from "../orders/approvals/decide.ts";
import { awaitingApprovalBy } from "../orders/approvals/home.ts";
import { type ProfileSpend, spendThisMonth } from "../orders/budget/spend.ts";
import { onTimeThisMonth } from "../orders/dates/on-time.ts";
import { recentOrdersOf } from "../orders/lookup.ts";
import type { Order } from "../orders/model/order.ts";
import { needsAttentionFor } from "../orders/operations/list.ts";
import { buildHomeView, HOME_ORDER_LIMIT } from "./blocks/home.ts";
import type { SlackContext } from "./context.ts";
import type { WebClient } from "./outbound/index.ts";

/**
 * What App Home is built from; with `operators` and `customer`, admins also see "Needs attention"; with `approvals`,
 * approvers see "Waiting for your approval".
 */
export type HomeContext = Pick<SlackContext, "store"> &
  Partial<Pick<SlackContext, "operators" | "customer" | "now">> & {
    approvals?: Pick<ApprovalDeps, "customer" | "membership"> | undefined;
    /** The app's clock: which month "Spend this month" is (default the real one). */
    now?: SlackContext["now"] | undefined;
  };

export async function publishHome(ctx: HomeContext, client: WebClient, userId: string): Promise<void> {
  const [orders, attention, awaitingMe, spend] = await Promise.all([
    recentOrdersOf(ctx.store, userId, HOME_ORDER_LIMIT),
    // "Needs attention" never keeps "My orders" from showing: without it, the admin sees their orders.
    ctx.operators && ctx.customer
      ? needsAttentionFor(
          { store: ctx.store, membership: ctx.operators.membership, config: ctx.customer.config },
          userId,
        ).catch(() => null)
      : null,
    // Nor does "Waiting for your approval".
    ctx.approvals ? awaitingApprovalBy(ctx.store, ctx.approvals, userId).catch(() => []) : [],
    // Admins only (the same check as "Needs attention"); never keeps the rest from showing.
    ctx.operators && ctx.customer ? adminSpend(ctx, userId).catch(() => null) : null,
  ]);
  // The app's clock and the customer's zone, for every date shown, as in the orders' messages.
  const now = ctx.now?.() ?? new Date();
  const timeZone = ctx.customer?.timeZone ?? "UTC";
  // Admins (those who see "Needs attention") also see this month's on-time rate by profile.
  const onTime = attention ? await onTimeThisMonth(ctx.store, now, timeZone).catch(() => null) : null;
  await client.views.publish({
    user_id: userId,
    view: buildHomeView(orders, attention, awaitingMe, ctx.customer?.config.locale, spend, onTime, {
      now,
      timeZone,
    }),
  });
}

async function adminSpend(ctx: HomeContext, userId: string): Promise<ProfileSpend[] | null> {
  if (!ctx.operators || !ctx.customer) return null;
  const config = ctx.customer.config;
  if (!config.profiles.some((p) => p.budget)) return null;
  const admin = await checkAdmin(ctx.operators.membership, config, userId);
  return admin.allowed ? spendThisMonth(ctx.store, config, (ctx.now ?? (() => new Date()))()) : null;
}

/** Keeps a requester's Home tab in step with their orders: `orderChanged` after the order changed in the store. */
export interface HomeRefresher {
  /** Re-publishes the requester's Home soon (debounced per user). Never throws; failures are logged. */
  orderChanged(order: Pick<Order, "requestedBy" | "source">): void;
  /** Re-publishes these users' Homes soon (approvers, when an order starts or stops waiting for them). */
  usersChanged(userIds: readonly string[]): void;
  /** Drops pending refreshes (shutdown). */
  stop(): void;
}

export interface HomeRefresherOptions extends HomeContext {
  client: WebClient;
  /**
   * Changes to one user's orders within this window become one `views.publish` (default 1 s): a burst of
   * supplier events (picked, packed, shipped) costs one call, well within `views.publish`'s rate limit.
   */
  debounceMs?: number;
  logger?: Logger;
}

const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

export function createHomeRefresher(options: HomeRefresherOptions): HomeRefresher {
  const debounceMs = options.debounceMs ?? 1000;
  const logger = options.logger ?? pino({ level: "silent" });
  const pending = new Map<string, NodeJS.Timeout>();

  async function publish(userId: string): Promise<void> {
    try {
      // Reads the user's orders when it runs, so the refresh shows everything that changed while it waited.
      await publishHome(options, options.client, userId);
    } catch (error) {
      logger.warn({ err: error, userId }, "could not refresh the user's App Home");
    }
  }

  function run(userId: string): void {
    pending.delete(userId);
    void publish(userId);
  }

  function soon(userId: string): void {
    if (!SLACK_USER_ID.test(userId) || pending.has(userId)) return;
    const timer = setTimeout(() => run(userId), debounceMs);
    timer.unref();
    pending.set(userId, timer);
  }

  return {
    orderChanged(order) {
      // Workflow (and command-line) orders record the bot, not a person, as requester: no Home to refresh.
      if (order.source === "workflow" || order.source === "cli") return;
      soon(order.requestedBy);
    },
    usersChanged(userIds) {
      for (const userId of userIds) soon(userId);
    },
    stop() {
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    },
  };
}
