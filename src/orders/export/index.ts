/**
 * The month's orders as CSV, for finance: built here (no Slack, no database), written by whoever asked: `/order
 * export` uploads it to the admin's DM, `order-desk orders export` prints it. The orders come as an async
 * iterable (keyset pages from the store), and the lines go out as they are made, so a month of many thousand
 * orders never sits in memory whole.
 */
import { type ExportOrder, exportCells, exportHeader } from "./columns.ts";
import { csvLine } from "./csv.ts";

export { type ExportOrder, exportHeader, itemsCell, trackingCell } from "./columns.ts";
export { type CsvValue, csvCell, csvLine } from "./csv.ts";
export { type ExportMonth, type MonthResult, monthName, monthOf, parseExportMonth } from "./month.ts";

export interface ExportOptions {
  /** `export.personalData` in the customer file: the recipient's e-mail, phone and address too. */
  personalData: boolean;
  /** Whether the customer file has prices (`currency`): the money columns too. */
  prices?: boolean | undefined;
}

/** Where the orders come from: every order taken in [start, end), oldest first. */
export type ExportSource = (range: { start: Date; end: Date }) => AsyncIterable<ExportOrder>;

/** Counts what went by, for the message that comes with the file. */
export interface ExportTally {
  orders: number;
}

/** The header, then one line per order, as they come. */
export async function* exportCsv(
  orders: AsyncIterable<ExportOrder>,
  options: ExportOptions,
  tally: ExportTally = { orders: 0 },
): AsyncGenerator<string> {
  yield csvLine(exportHeader(options));
  for await (const order of orders) {
    tally.orders += 1;
    yield csvLine(exportCells(order, options));
  }
}
