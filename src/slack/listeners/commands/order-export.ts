/**
 * `/order export [YYYY-MM]`: an admin gets the month's orders as a CSV file in their DM with Order Desk. Who is
 * an admin is asked again here, on the server, every time (src/orders/admins.ts). The CSV is built by the domain
 * (src/orders/export/) from keyset pages of the store and written to a temporary file as it comes, then
 * streamed to Slack (../../outbound/file-upload.ts): a month of many thousand orders is never in memory at once. The
 * file is deleted afterwards, whatever happened.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { RespondFn, webApi } from "@slack/bolt";
import { checkAdmin } from "../../../orders/admins.ts";
import { type ExportTally, exportCsv, monthName, parseExportMonth } from "../../../orders/export/index.ts";
import { ordersOfMonth } from "../../../orders/export/source.ts";
import { escapeMrkdwn } from "../../blocks/text.ts";
import type { SlackContext } from "../../context.ts";
import { SlackCallError, uploadFile } from "../../outbound/index.ts";

export interface ExportRequest {
  /** The month as typed after `export` (empty: the current month). */
  month: string;
  command: string;
  userId: string;
}

export async function answerOrderExport(
  ctx: SlackContext,
  client: webApi.WebClient,
  respond: RespondFn,
  request: ExportRequest,
): Promise<void> {
  const say = (text: string) => respond({ response_type: "ephemeral", text });
  const admin = await checkAdmin(ctx.operators.membership, ctx.customer.config, request.userId);
  if (!admin.allowed) {
    await say(admin.message);
    return;
  }
  const parsed = parseExportMonth(request.month, ctx.now());
  if (!parsed.ok) {
    await say(`*${escapeMrkdwn(parsed.typed)}*: ${parsed.message} (\`${request.command} export 2026-11\`)`);
    return;
  }
  const { month } = parsed;
  const personalData = ctx.customer.config.export.personalData;
  await say(`Exporting the orders of ${monthName(month)}: the CSV file follows in your DM with Order Desk.`);

  const dir = await mkdtemp(join(tmpdir(), "order-desk-export-"));
  try {
    const filename = `orders-${month.label}.csv`;
    const path = join(dir, filename);
    const tally: ExportTally = { orders: 0 };
    const lines = exportCsv(
      ordersOfMonth(ctx.store, month),
      { personalData, prices: ctx.customer.config.currency !== undefined },
      tally,
    );
    // Owner-only: the file holds names (and with export.personalData, contact details) until it is deleted.
    await pipeline(Readable.from(lines), createWriteStream(path, { mode: 0o600 }));
    const count = `${tally.orders.toLocaleString("en-GB")} order${tally.orders === 1 ? "" : "s"}`;
    const left = personalData
      ? ""
      : " Recipients' e-mail, phone and address are left out (`export.personalData`).";
    /** The note that comes with the file, posted once the file's bytes are at Slack: its DM is where it goes. */
    const announce = async (): Promise<string> => {
      const posted = await client.chat.postMessage({
        channel: request.userId,
        text: `Orders of ${monthName(month)} (taken ${month.label}, UTC): ${count}.${left}`,
      });
      if (typeof posted.channel !== "string")
        throw new Error("Slack did not say which DM the message went to");
      return posted.channel;
    };
    try {
      await uploadFile({
        client,
        path,
        filename,
        title: `Order Desk orders ${month.label}`,
        channelId: announce,
      });
    } catch (error) {
      // An app installed before /order export existed lacks files:write until it is reinstalled.
      if (error instanceof SlackCallError && error.slackError === "missing_scope") {
        await say(
          "Order Desk may not upload files yet: reinstall the app from manifest.yml (it adds the files:write scope), then export again.",
        );
        ctx.logger.warn({ err: error }, "the export could not be uploaded: files:write is missing");
        return;
      }
      throw error;
    }
    ctx.logger.info(
      { userId: request.userId, month: month.label, orders: tally.orders, personalData },
      "orders exported",
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
