/** What the demo prints about its orders: each thread's figures, and the supplier's estimates for an order. */
import type { OrderDesk } from "../../src/main.ts";
import { REPLY_EVENT_TYPE } from "../../src/orders/updates/post-update.ts";
import { readTracking } from "../../src/orders/updates/tracking.ts";
import type { FakeSlack } from "../fake-slack/index.ts";
import type { World } from "../world.ts";

/** Per order: its parcels and supplier events, and what its thread got (replies, messages sent to the channel). */
export async function threadSummary(desk: OrderDesk, fake: FakeSlack): Promise<string> {
  const { rows } = await desk.store.query(
    `SELECT o.id, o.external_document_number AS edn, o.slack_channel_id AS channel, o.tracking,
            count(e.id)::int AS events
       FROM orders o LEFT JOIN supplier_events e ON e.order_id = o.id
      GROUP BY o.id ORDER BY o.created_at`,
  );
  const lines = ["What each order's thread got (the customer file's default, updates: milestones):"];
  for (const o of rows as {
    id: string;
    edn: string;
    channel: string | null;
    tracking: unknown;
    events: number;
  }[]) {
    const replies = fake.messages(o.channel ?? "").filter((m) => {
      const meta = m.metadata as { event_type?: string; event_payload?: { order_id?: string } } | undefined;
      return meta?.event_type === REPLY_EVENT_TYPE && meta.event_payload?.order_id === o.id;
    });
    const parcels = Object.keys(readTracking(o.tracking)?.parcels ?? {}).length;
    const broadcasts = replies.filter((m) => m.replyBroadcast).length;
    lines.push(
      `  ${o.edn.padEnd(10)} ${parcels} parcel${parcels === 1 ? " " : "s"}  ${String(o.events).padStart(2)} supplier events  →  ` +
        `${replies.length} replies, ${broadcasts} also sent to the channel`,
    );
  }
  return lines.join("\n");
}

const DAY_FORMAT = new Intl.DateTimeFormat("en-GB", {
  weekday: "short",
  day: "numeric",
  month: "short",
  timeZone: "UTC",
});

/** The supplier's delivery estimates for an order, in the order it sent them (each change once). */
export async function estimatesOf(sandbox: World["sandbox"], ticket: string): Promise<string> {
  const order = (await sandbox.orders()).find((o) => o.customerReference === ticket);
  const detail = order && (await sandbox.order(order.correlationId));
  const seen: string[] = [];
  for (const { event } of detail?.events ?? []) {
    const data = event.data as { parcel?: { number: number }; status?: string; estimatedDelivery?: string };
    if (data.parcel?.number !== 1 || !data.estimatedDelivery) continue;
    const day = DAY_FORMAT.format(new Date(`${data.estimatedDelivery}T12:00:00Z`)).replace(",", "");
    const said = `${day} (${data.status?.replace(/_/g, " ")})`;
    if (!seen.at(-1)?.startsWith(day)) seen.push(said);
  }
  return `the supplier's delivery estimates for ${ticket}: ${seen.join(" → ") || "none"}`;
}
