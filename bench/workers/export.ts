/**
 * One export of a month of orders, in its own process so that its memory is its own: the store is seeded with
 * `orders` orders in one month (each with a shipping address, three lines, two parcels' tracking and a
 * `delivered` event), the heap is collected, and then either
 * - `stream`: what `/order export` does (keyset pages from the store → CSV lines → a temporary file), or
 * - `buffered`: the obvious alternative: one SELECT of the month, the whole CSV built as one string, written.
 * Reported: wall time of the export and the peak resident memory and JS heap above what the process held just
 * before it (sampled every 5 ms), and the file's size.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { exportCells, exportHeader } from "../../src/orders/export/columns.ts";
import { csvLine, exportCsv, monthOf } from "../../src/orders/export/index.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { ordersTakenBetween } from "../../src/store/repositories/order-export.ts";
import { readChildConfig, reportResult } from "../lib/ipc.ts";

export interface ExportBenchConfig {
  mode: "stream" | "buffered";
  orders: number;
  /** PostgreSQL (a database of its own); the embedded store in memory when absent. */
  databaseUrl?: string;
}

export interface ExportBenchResult {
  ms: number;
  peakRssMb: number;
  peakHeapMb: number;
  fileMb: number;
  rows: number;
}

const SEED = `
  INSERT INTO orders (id, profile, external_document_number, customer_reference, requested_by, source, status,
                      correlation_id, status_at, status_occurred_at, created_at, request, tracking)
  SELECT 'order-' || n, 'Acme EU', 'HD-' || n || '-1', 'HD-' || n, 'U0AGENT01', 'command', 'delivered',
         'c0000000-0000-4000-8000-' || lpad(n::text, 12, '0'),
         $1::timestamptz + n * interval '7 minutes', $1::timestamptz + n * interval '7 minutes' + interval '2 days',
         $1::timestamptz + n * interval '7 minutes',
         jsonb_build_object(
           'externalDocumentNumber', 'HD-' || n || '-1', 'customerReference', 'HD-' || n,
           'invoice', jsonb_build_object('id', 'INV-1'),
           'shipping', jsonb_build_object('deliveryAt', 'Office', 'companyName', 'Acme BV',
             'contact', jsonb_build_object('firstName', 'Nina', 'lastName', 'Newhire ' || n,
               'phoneNumber', '+31 20 555 0101', 'email', 'nina' || n || '@example.com'),
             'address1', 'Herengracht ' || n, 'city', 'Amsterdam', 'zipCode', '1017 CB', 'countryIso2', 'NL'),
           'orderLines', jsonb_build_array(
             jsonb_build_object('itemNumber', 'LAP-14-PRO', 'quantity', 1),
             jsonb_build_object('itemNumber', 'MON-27-4K', 'quantity', 2),
             jsonb_build_object('itemNumber', 'DOCK-USBC', 'quantity', 1))),
         jsonb_build_object('parcels', jsonb_build_object(
           '1', jsonb_build_object('carrier', 'DHL', 'trackingNumber', '00340434' || n, 'trackingUrl', 'https://t.example/1',
                                   'status', 'delivered', 'parcel', jsonb_build_object('number', 1, 'of', 2)),
           '2', jsonb_build_object('carrier', 'UPS', 'trackingNumber', '1Z999' || n, 'trackingUrl', 'https://t.example/2',
                                   'status', 'delivered', 'parcel', jsonb_build_object('number', 2, 'of', 2))))
    FROM generate_series(1, $2::int) AS n;
  INSERT INTO supplier_events (id, correlation_id, order_id, type, occurred_at, payload)
  SELECT 'event-' || o.id, o.correlation_id, o.id, 'order.status_changed', o.status_occurred_at,
         '{"data":{"status":"delivered"}}'::jsonb
    FROM orders o;`;

async function seed(store: Store, month: { start: Date }, orders: number): Promise<void> {
  // PostgreSQL: the database is the benchmark's for all its runs; each run starts from no orders.
  await store.query("DELETE FROM supplier_events");
  await store.query("DELETE FROM orders");
  const [insertOrders, insertEvents] = SEED.split(";").filter((s) => s.trim() !== "");
  await store.query(insertOrders as string, [month.start.toISOString(), orders]);
  await store.query(insertEvents as string);
}

/** The alternative without pages or streams: every row at once, the whole file as one string. */
async function buffered(store: Store, month: { start: Date; end: Date }, path: string): Promise<number> {
  const all = [];
  for await (const order of ordersTakenBetween(store, month, 1_000_000)) all.push(order);
  let text = csvLine(exportHeader(true));
  for (const order of all) text += csvLine(exportCells(order, true));
  await writeFile(path, text);
  return all.length;
}

async function streamed(store: Store, month: { start: Date; end: Date }, path: string): Promise<number> {
  const tally = { orders: 0 };
  await pipeline(
    Readable.from(exportCsv(ordersTakenBetween(store, month), { personalData: true }, tally)),
    createWriteStream(path),
  );
  return tally.orders;
}

const config = readChildConfig<ExportBenchConfig>();
const store = await openStore(
  config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: "memory://" },
);
const dir = await mkdtemp(join(tmpdir(), "order-desk-export-bench-"));
try {
  const month = monthOf(2026, 10);
  await seed(store, month, config.orders);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  }, 5);
  const path = join(dir, "orders.csv");
  const started = performance.now();
  const rows =
    config.mode === "stream" ? await streamed(store, month, path) : await buffered(store, month, path);
  const ms = performance.now() - started;
  clearInterval(sampler);
  const after = process.memoryUsage();
  peakRss = Math.max(peakRss, after.rss);
  peakHeap = Math.max(peakHeap, after.heapUsed);
  const result: ExportBenchResult = {
    ms,
    peakRssMb: (peakRss - before.rss) / 2 ** 20,
    peakHeapMb: (peakHeap - before.heapUsed) / 2 ** 20,
    fileMb: (await stat(path)).size / 2 ** 20,
    rows,
  };
  await reportResult(result);
} finally {
  await store.close();
  await rm(dir, { recursive: true, force: true });
}
