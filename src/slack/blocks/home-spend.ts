/** App Home's "Spend this month" for admins: each budgeted profile's month-to-date spend against its budget. */
import type { types } from "@slack/bolt";
import { moneyText } from "../../orders/budget/format.ts";
import type { ProfileSpend } from "../../orders/budget/spend.ts";
import { escapeMrkdwn as esc, mrkdwn, plain } from "./text.ts";

type KnownBlock = types.KnownBlock;

/** Profiles listed (one block each), within Slack's 100 blocks beside the other sections. */
export const HOME_SPEND_LIMIT = 10;

function bar(percent: number): string {
  const filled = Math.min(10, Math.floor(percent / 10));
  return `${"▰".repeat(filled)}${"▱".repeat(10 - filled)}`;
}

function mark(percent: number): string {
  return percent >= 100 ? " 🔴" : percent >= 80 ? " 🟠" : "";
}

export function homeSpendBlocks(spends: readonly ProfileSpend[] | null, locale?: string): KnownBlock[] {
  if (!spends || spends.length === 0) return [];
  const month = spends[0]?.month ?? "";
  const blocks: KnownBlock[] = [{ type: "header", text: plain(`Spend this month (${month})`, 150) }];
  for (const s of spends.slice(0, HOME_SPEND_LIMIT)) {
    blocks.push({
      type: "section",
      text: mrkdwn(
        `*${esc(s.profile)}* · ${moneyText(s.spent, s.currency, locale)} of ${moneyText(s.monthly, s.currency, locale)} (${s.percent} %)${mark(s.percent)}\n${bar(s.percent)} · over budget: ${s.onExceed}`,
      ),
    });
  }
  if (spends.length > HOME_SPEND_LIMIT) {
    blocks.push({
      type: "context",
      elements: [mrkdwn(`…and ${spends.length - HOME_SPEND_LIMIT} more profiles (see /metrics)`)],
    });
  }
  blocks.push({
    type: "context",
    elements: [
      mrkdwn(
        "Counts orders placed or waiting for approval; rejected, expired, failed and cancelled ones are left out.",
      ),
    ],
  });
  return blocks;
}
