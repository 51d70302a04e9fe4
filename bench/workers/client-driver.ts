/**
 * Client benchmark driver: a fixed number of concurrent callers, each placing orders back to back for a fixed
 * time, through either our `SupplierClient` or a raw `undici.request` carrying the same body on an Agent with the
 * same keep-alive settings. autocannon cannot measure this: the code under test is the caller itself.
 */
import { Agent, request } from "undici";
import { SupplierClient } from "../../src/supplier/client.ts";
import { BENCH_TEST_KEY, benchOrder } from "../lib/fixtures.ts";
import { readChildConfig, reportResult } from "../lib/ipc.ts";

export interface ClientDriverConfig {
  /**
   * `paired`: both, in alternating slices of `sliceSeconds` in this one process (raw, client, client, raw…), so
   * a burst of load from elsewhere on the machine hits both sides alike.
   */
  mode: "client" | "raw" | "paired";
  url: string;
  concurrency: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Paired mode: length of each slice (default 0.5 s). */
  sliceSeconds?: number;
}

export interface ClientDriverResult {
  count: number;
  errors: number;
  elapsedMs: number;
  /** Milliseconds per call, rounded to microseconds. */
  latencies: number[];
  firstError?: string;
}

export interface PairedDriverResult {
  raw: ClientDriverResult;
  client: ClientDriverResult;
}

const config = readChildConfig<ClientDriverConfig>();
const endpoint = new URL("orders/create", config.url.endsWith("/") ? config.url : `${config.url}/`);
const agentOptions = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connect: { timeout: 10_000 } };
let sequence = 0;

function clientCaller(): () => Promise<unknown> {
  const client = new SupplierClient({ baseUrl: config.url, environment: "test" });
  return () => client.createOrder(benchOrder(`DRV-${++sequence}`), { apiKey: BENCH_TEST_KEY });
}

function rawCaller(): () => Promise<unknown> {
  const dispatcher = new Agent(agentOptions);
  return async () => {
    const response = await request(endpoint, {
      method: "POST",
      dispatcher,
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": "order-desk",
        "x-api-key": BENCH_TEST_KEY,
      },
      body: JSON.stringify(benchOrder(`DRV-${++sequence}`)),
    });
    const body = await response.body.json();
    if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
    return body;
  };
}

async function drive(
  placeOrder: () => Promise<unknown>,
  seconds: number,
  record: boolean,
): Promise<ClientDriverResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const end = started + seconds * 1000;
  const caller = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await placeOrder();
        if (record) latencies.push(Math.round((performance.now() - t0) * 1000) / 1000);
      } catch (error) {
        errors += 1;
        firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: config.concurrency }, caller));
  const result: ClientDriverResult = {
    count: latencies.length,
    errors,
    elapsedMs: performance.now() - started,
    latencies,
  };
  if (firstError !== undefined) result.firstError = firstError;
  return result;
}

function merge(into: ClientDriverResult, slice: ClientDriverResult): void {
  into.count += slice.count;
  into.errors += slice.errors;
  into.elapsedMs += slice.elapsedMs;
  for (const v of slice.latencies) into.latencies.push(v);
  if (slice.firstError !== undefined) into.firstError ??= slice.firstError;
}

if (config.mode === "paired") {
  const callers = { raw: rawCaller(), client: clientCaller() };
  const slice = config.sliceSeconds ?? 0.5;
  for (let t = 0; t < config.warmupSeconds; t += 2 * slice) {
    await drive(callers.raw, slice, false);
    await drive(callers.client, slice, false);
  }
  const empty = (): ClientDriverResult => ({ count: 0, errors: 0, elapsedMs: 0, latencies: [] });
  const result: PairedDriverResult = { raw: empty(), client: empty() };
  const order = [
    ["raw", "client"],
    ["client", "raw"],
  ] as const;
  const pairs = Math.max(1, Math.round(config.durationSeconds / (2 * slice)));
  for (let i = 0; i < pairs; i++) {
    for (const mode of order[i % 2] as readonly ("raw" | "client")[]) {
      merge(result[mode], await drive(callers[mode], slice, true));
    }
  }
  await reportResult(result);
} else {
  const placeOrder = config.mode === "client" ? clientCaller() : rawCaller();
  await drive(placeOrder, config.warmupSeconds, false);
  await reportResult(await drive(placeOrder, config.durationSeconds, true));
}
// The client's keep-alive pool would hold the process open for its idle timeout.
process.exit(0);
