/**
 * Admin alerts an admin can act on, App Home's "Needs attention" and the attach modal. Buttons carry only the
 * attention item's id: the listener looks the item up and checks the clicker again.
 */
import type { types } from "@slack/bolt";
import { COMMAND_LINE, ORDER_DESK } from "../../orders/operations/resolve.ts";
import {
  type ActionOutcome,
  type AttentionItem,
  type AttentionList,
  offersDetach,
  type Resolution,
} from "../../orders/operations/types.ts";
import { renderAdminAlert } from "../notifier.ts";
import { ACTION, BLOCK, CALLBACK } from "./ids.ts";
import { escapeMrkdwn as esc, mrkdwn, plain, slackDate, truncate } from "./text.ts";

type KnownBlock = types.KnownBlock;

const BUTTONS: Record<AttentionItem["kind"], Array<{ id: string; label: string; primary?: boolean }>> = {
  failed_order: [
    { id: ACTION.retryOrder, label: "Retry now", primary: true },
    { id: ACTION.markHandled, label: "Mark handled" },
  ],
  unposted_updates: [{ id: ACTION.retryPosting, label: "Retry posting", primary: true }],
  orphan_events: [
    { id: ACTION.attachOrphans, label: "Attach to order…", primary: true },
    { id: ACTION.ignoreOrphans, label: "Ignore" },
  ],
  unreadable_events: [{ id: ACTION.reprocessEvents, label: "Reprocess", primary: true }],
  orphan_summary: [{ id: ACTION.ignoreOrphans, label: "Ignore all" }],
  stalled_order: [{ id: ACTION.markHandled, label: "Mark handled" }],
  at_risk_order: [{ id: ACTION.markHandled, label: "Mark handled" }],
};

const DONE: Record<Resolution, string> = {
  retried: "Retried",
  handled: "Marked handled",
  reposted: "Posting retried",
  attached: "Attached",
  ignored: "Ignored",
  obsolete: "Closed",
  reprocessed: "Reprocessed",
};

/** Undoes an attach; admins only, like every button here (checked on the server). */
const DETACH = [{ id: ACTION.detachOrphans, label: "Detach" }];

function actionsBlock(item: AttentionItem, buttons = BUTTONS[item.kind]): KnownBlock {
  return {
    type: "actions",
    // One per item: block ids are unique within a message or view (App Home lists several).
    block_id: `${BLOCK.attentionActions}:${item.id}`,
    elements: buttons.map((b) => ({
      type: "button" as const,
      action_id: b.id,
      text: plain(b.label, 75),
      value: item.id,
      ...(b.primary ? { style: "primary" as const } : {}),
    })),
  };
}

/** The command that resolved an item from the command line, as recorded (one of ours, else left out). */
function commandOf(detail: Record<string, unknown>): string {
  const via = detail.via;
  return typeof via === "string" && /^order-desk [a-z ]{1,40}$/.test(via) ? ` (\`${via}\`)` : "";
}

/** "Retried by @X on <date>", with what came of it (the order an event group joined, why it was closed). */
export function outcomeLine(item: AttentionItem): string {
  if (!item.resolution || !item.resolvedAt) return "";
  const detail = item.resolutionDetail ?? {};
  const extra =
    item.resolution === "attached" && typeof detail.externalDocumentNumber === "string"
      ? ` to order ${esc(detail.externalDocumentNumber)}`
      : item.kind === "orphan_summary" && typeof detail.groups === "number"
        ? ` (${detail.groups} group${detail.groups === 1 ? "" : "s"} of orphan events)`
        : item.resolution === "obsolete" && typeof detail.reason === "string"
          ? `: ${esc(detail.reason)}`
          : "";
  const by =
    item.resolvedBy === COMMAND_LINE
      ? `an admin from the command line${commandOf(detail)}`
      : item.resolvedBy === ORDER_DESK
        ? "Order Desk"
        : who(item.resolvedBy);
  const done = `${DONE[item.resolution]}${extra} by ${by} on ${slackDate(item.resolvedAt)}`;
  if (!item.detachedAt) return `:white_check_mark: ${done}`;
  return `:leftwards_arrow_with_hook: ${done}; detached by ${who(item.detachedBy)} on ${slackDate(item.detachedAt)}${detachedWhat(item)}`;
}

function who(userId: string | null): string {
  return userId && /^[UW][A-Z0-9]{2,}$/.test(userId) ? `<@${userId}>` : "someone";
}

/** What the Detach left: the updates orphans again (a new alert), or none. */
function detachedWhat(item: AttentionItem): string {
  const events = Number(item.detachDetail?.events ?? 0);
  if (!(events > 0)) return " (no update had to leave the order)";
  return ` (${events} update${events === 1 ? " is an orphan" : "s are orphans"} again: see the new alert)`;
}

/** The note in the order's thread after a Detach: the replies above from that correlation id are not its own. */
export function detachedNote(item: AttentionItem): string {
  const posted = Number(item.detachDetail?.posted ?? 0);
  const n = `${posted} supplier update${posted === 1 ? "" : "s"}`;
  return truncate(
    `:leftwards_arrow_with_hook: ${n} posted in this thread for correlation id ${esc(item.subject)} ` +
      `${posted === 1 ? "was" : "were"} attached to this order by mistake and detached by ${who(item.detachedBy)}` +
      `${item.detachedAt ? ` on ${slackDate(item.detachedAt)}` : ""}: ${posted === 1 ? "it is" : "they are"} ` +
      "not this order's. Later updates of that correlation id no longer come here.",
    3000,
  );
}

/** The alert as posted (with its buttons while open) and as rewritten once resolved (with who, what, when). */
export function attentionAlertMessage(item: AttentionItem): { text: string; blocks: KnownBlock[] } {
  const alert = renderAdminAlert({ key: item.id, ...item.alert });
  if (item.resolvedAt === null) return { text: alert.text, blocks: [...alert.blocks, actionsBlock(item)] };
  const outcome = outcomeLine(item);
  return {
    text: truncate(`${alert.text}\n${outcome}`, 3000),
    blocks: [
      ...alert.blocks,
      { type: "context", elements: [mrkdwn(outcome)] },
      ...(offersDetach(item) ? [actionsBlock(item, DETACH)] : []),
    ],
  };
}

/** What the clicker is told (ephemeral, or a DM from App Home). */
export function outcomeAnswer(outcome: ActionOutcome): string {
  switch (outcome.kind) {
    case "done":
      return `${outcomeLine(outcome.item)}.${doneNext(outcome.item)}`;
    case "already":
      return `Nothing was done: this was already handled. ${outcomeLine(outcome.item)}.`;
    case "obsolete":
      return `Nothing was done: ${esc(outcome.reason)}. The alert is closed.`;
    case "refused":
    case "invalid":
      return `Nothing was done: ${esc(outcome.reason)}.`;
  }
}

function doneNext(item: AttentionItem): string {
  switch (item.resolution) {
    case "retried":
      return " The order is being placed again; its message shows how it goes.";
    case "reposted":
      return " Its updates are being posted, oldest first.";
    case "attached":
      return item.detachedAt
        ? " The order's updates of that correlation id are orphans again, with a new alert (Attach to order…, Ignore); a note in its thread says so where replies had been posted."
        : " Its waiting updates are being posted in the order's thread; Detach on the alert undoes it.";
    case "reprocessed":
      return " Every unreadable delivery is being read again with the mapping in force; each one that can now be read is posted once in its order's thread, in the order they happened, and what still cannot be read gets a new alert.";
    default:
      return "";
  }
}

const KIND_COUNT: Record<AttentionItem["kind"], (n: number) => string> = {
  failed_order: (n) => `${n} failed order${n === 1 ? "" : "s"}`,
  unposted_updates: (n) => `${n} order${n === 1 ? "" : "s"} with unposted updates`,
  orphan_events: (n) => `${n} group${n === 1 ? "" : "s"} of orphan events`,
  unreadable_events: (n) => `${n} shape${n === 1 ? "" : "s"} of unreadable supplier deliveries`,
  // Not a kind of trouble of its own: its orphan groups are counted above.
  orphan_summary: () => "",
  stalled_order: (n) => `${n} stalled order${n === 1 ? "" : "s"}`,
  at_risk_order: (n) => `${n} order${n === 1 ? "" : "s"} at risk of arriving after the needed-by date`,
};

/** App Home's "Needs attention" for admins, above "My orders". */
export function needsAttentionBlocks(list: AttentionList): KnownBlock[] {
  const total = totalOf(list);
  const blocks: KnownBlock[] = [{ type: "header", text: plain(`Needs attention (${total})`, 150) }];
  if (total === 0) {
    blocks.push({ type: "section", text: mrkdwn("Nothing needs an admin right now.") });
    return blocks;
  }
  const shownCount = list.items.filter((i) => i.kind !== "orphan_summary").length;
  const more = total > shownCount ? ` · ${list.items.length} shown, failed orders first` : "";
  blocks.push({ type: "context", elements: [mrkdwn(`${countsLine(list)}${more}`)] });
  if (total > shownCount) {
    blocks.push({
      type: "actions",
      block_id: BLOCK.attentionSeeAll,
      elements: [
        {
          type: "button",
          action_id: ACTION.attentionSeeAll,
          text: plain(`See all ${total}`, 75),
          value: "all",
        },
      ],
    });
  }
  for (const item of list.items) {
    const alert = renderAdminAlert({ key: item.id, ...item.alert }).blocks[0];
    const body = alert?.type === "section" && alert.text ? alert.text.text : esc(item.alert.title);
    blocks.push({
      type: "section",
      text: mrkdwn(truncate(`${body}\n_Since ${slackDate(item.openedAt)}_`, 3000)),
    });
    blocks.push(actionsBlock(item));
  }
  blocks.push({ type: "divider" });
  return blocks;
}

/** Every kind's open count (a kind this version does not name is counted too). */
function totalOf(list: AttentionList): number {
  return Object.values(list.counts).reduce((sum, n) => sum + n, 0);
}

/** "2 failed orders · 230 groups of orphan events": every kind with open items. */
function countsLine(list: AttentionList): string {
  return (Object.keys(list.counts) as AttentionItem["kind"][])
    .filter((kind) => list.counts[kind] > 0)
    .map((kind) => KIND_COUNT[kind]?.(list.counts[kind]) ?? `${list.counts[kind]} ${kind.replace(/_/g, " ")}`)
    .join(" · ");
}

/** Items the "See all" modal lists (one section each, within a modal's 100 blocks). */
export const SEE_ALL_LIMIT = 90;

/** "See all" from App Home: every open item, failed orders first, one line each; the actions stay on the alerts. */
export function attentionListModal(list: AttentionList): types.ModalView {
  const total = totalOf(list);
  const blocks: KnownBlock[] = [
    {
      type: "context",
      elements: [mrkdwn(total === 0 ? "Nothing needs an admin right now." : countsLine(list))],
    },
  ];
  for (const item of list.items.slice(0, SEE_ALL_LIMIT)) {
    const where = item.alertChannelId && item.alertTs ? " · alert in the admin channel" : "";
    const part = item.summarizedIn ? " · part of a storm of orphan events (Ignore all on its summary)" : "";
    blocks.push({
      type: "section",
      text: mrkdwn(
        truncate(
          `*${esc(item.alert.title)}* · ${esc(item.subject)}\n_Since ${slackDate(item.openedAt)}${where}${part}_`,
          3000,
        ),
      ),
    });
  }
  if (total > blocks.length - 1) {
    blocks.push({
      type: "context",
      elements: [mrkdwn(`${total - (blocks.length - 1)} more not listed here.`)],
    });
  }
  return {
    type: "modal",
    callback_id: CALLBACK.attentionList,
    title: plain("Needs attention", 24),
    close: plain("Close", 24),
    blocks,
  };
}

/** "Attach to order…": the order's number; the item id rides along only as a lookup key. */
export function attachOrphansModal(item: AttentionItem): types.ModalView {
  return {
    type: "modal",
    callback_id: CALLBACK.attachOrphans,
    private_metadata: item.id,
    title: plain("Attach to order", 24),
    submit: plain("Attach", 24),
    close: plain("Cancel", 24),
    blocks: [
      {
        type: "section",
        text: mrkdwn(
          truncate(
            `${esc(item.alert.title)}: the waiting supplier updates (correlation id ${esc(item.subject)}) ` +
              "join the order you name, and are posted in its thread in the order they happened.",
            3000,
          ),
        ),
      },
      {
        type: "input",
        block_id: BLOCK.attachOrderNumber,
        label: plain("Order number", 2000),
        hint: plain("The order's external document number, as its message shows it.", 2000),
        element: { type: "plain_text_input", action_id: ACTION.value, max_length: 100 },
      },
    ],
  };
}
