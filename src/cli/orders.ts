/**
 * `order-desk orders export [--month YYYY-MM]`: a month's orders as CSV on stdout (default: the current month,
 * UTC), the same columns as `/order export` in Slack, built by the same module (src/orders/export/) and read in
 * the same keyset pages: a month of many thousand orders streams out as it is read. The recipient's e-mail, phone
 * and address are in only when the customer file says `export: { personalData: true }`. For deployments on
 * PostgreSQL; on the embedded store it refuses and names `/order export` instead. Exit codes as `order-desk jobs`.
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { loadCustomerConfig } from "../config/customer.ts";
import { type ExportTally, exportCsv, monthName, parseExportMonth } from "../orders/export/index.ts";
import { ordersOfMonth } from "../orders/export/source.ts";
import { parseCommandArgs } from "./args.ts";
import { EXIT_OPS, type OperationsDeps, type OperationsIo, openOperationsStore } from "./operations.ts";

export const ORDERS_USAGE = `Usage: order-desk orders export [--month YYYY-MM]

Writes the month's orders as CSV to stdout (default: the current month, UTC): order number, correlation id,
ticket, profile, requester, recipient name, items, status, ordered/placed/delivered at, tracking numbers, and
the recipient's e-mail, phone and address when the customer file says export: { personalData: true }.
For deployments on PostgreSQL (DATABASE_URL); on the embedded store, use /order export in Slack.
Exit codes: 0 written, 1 failed, 2 bad usage, 3 the embedded store (use Slack).
`;

export interface OrdersDeps extends OperationsDeps {
  /** `export.personalData`, when the caller has the customer file already (tests). */
  personalData?: boolean;
  /** Whether the customer file has prices, likewise. */
  prices?: boolean;
}

const SPEC = {
  name: "orders",
  usage: ORDERS_USAGE,
  positionals: true,
  options: { month: { type: "string" } },
} as const;

export async function runOrders(
  argv: string[],
  env: Record<string, string | undefined>,
  io: OperationsIo,
  deps: OrdersDeps = {},
): Promise<number> {
  const args = parseCommandArgs(SPEC, argv, io);
  if (!args.ok) return args.exitCode;
  const { values, positionals } = args;
  if (positionals.length !== 1 || positionals[0] !== "export") {
    io.stderr.write(`order-desk orders: the only action is "export"\n\n${ORDERS_USAGE}`);
    return EXIT_OPS.usage;
  }
  const now = deps.now ?? (() => new Date());
  const parsed = parseExportMonth(values.month ?? "", now());
  if (!parsed.ok) {
    io.stderr.write(`order-desk orders: --month ${JSON.stringify(parsed.typed)}: ${parsed.message}\n`);
    return EXIT_OPS.usage;
  }
  const opened = await openOperationsStore("orders", env, io, deps);
  if (!opened.ok) return opened.exitCode;
  try {
    const needed = deps.personalData === undefined || deps.prices === undefined;
    const customer =
      needed && opened.target ? await loadCustomerConfig(opened.target.customerConfigPath) : null;
    const personalData = deps.personalData ?? customer?.export.personalData ?? false;
    const prices = deps.prices ?? customer?.currency !== undefined;
    const tally: ExportTally = { orders: 0 };
    const lines = exportCsv(ordersOfMonth(opened.store, parsed.month), { personalData, prices }, tally);
    // `end: false`: stdout stays open for whatever the process writes after.
    await pipeline(Readable.from(lines), io.stdout, { end: false });
    io.stderr.write(
      `Exported ${tally.orders} order${tally.orders === 1 ? "" : "s"} of ${monthName(parsed.month)}` +
        `${personalData ? " (with the recipients' contact details and addresses)" : ""}.\n`,
    );
    return EXIT_OPS.ok;
  } finally {
    await opened.close();
  }
}
