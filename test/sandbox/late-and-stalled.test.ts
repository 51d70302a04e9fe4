/**
 * The sandbox's fulfilment told to go wrong: an estimate that slips (and maybe recovers) and an order that stalls,
 * matched by item number, document number or customer reference; set from the options, the fault controls and the
 * command line; over real HTTP in both webhook dialects. An order without a fault plays exactly as before.
 */
import { EventEmitter } from "node:events";
import { pino } from "pino";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runSandbox } from "../../src/sandbox/cli.ts";
import type { SandboxDialect } from "../../src/sandbox/dialect.ts";
import { type PlannedEvent, planFulfilment } from "../../src/sandbox/fulfilment.ts";
import { createRandom } from "../../src/sandbox/random.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import type { ShippingUpdatedData } from "../../src/supplier/events.ts";
import { checkOrderRequest } from "../../src/supplier/rules.ts";
import type { CreateOrderRequest } from "../../src/supplier/schema.ts";
import {
  createOrder,
  dispatcher,
  KEY,
  type Receiver,
  SECRET,
  startReceiver,
  uniqueNumber,
  validOrder,
  waitFor,
} from "./support.ts";

const ACCEPTED_AT = Date.parse("2026-12-01T09:00:00Z"); // a Tuesday
const CORRELATION_ID = "0b6f7f5e-8a0c-4f53-9a52-2f4f3b1f0c11";
const running: Array<SandboxHandle | Receiver> = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});
afterAll(() => dispatcher.close());

function request(overrides: Parameters<typeof validOrder>[0] = {}): CreateOrderRequest {
  const checked = checkOrderRequest(validOrder(overrides));
  if (!checked.ok) throw new Error(JSON.stringify(checked.details));
  return checked.value;
}

function plan(
  req: CreateOrderRequest,
  fault?: Parameters<typeof planFulfilment>[0]["fault"],
): PlannedEvent[] {
  return planFulfilment(
    {
      correlationId: CORRELATION_ID,
      request: req,
      acceptedAt: ACCEPTED_AT,
      trackingUrl: () => "http://t.test/",
      fault,
    },
    createRandom("late", "default", req.externalDocumentNumber, "plan"),
  );
}

const parcelUpdates = (steps: PlannedEvent[]) =>
  steps.flatMap((s) => (s.type === "order.shipping_updated" ? [s.data as ShippingUpdatedData] : []));
const statuses = (steps: PlannedEvent[]) =>
  steps.flatMap((s) => (s.type === "order.status_changed" ? [s.data.status] : []));

/** A parcel's usual estimate: the one its `shipped` update gives in the plan without a fault. */
function usualOf(shipped: ShippingUpdatedData[], update: ShippingUpdatedData): string | undefined {
  return shipped.find((u) => u.parcel.number === update.parcel.number)?.estimatedDelivery;
}

/** Business days between two YYYY-MM-DD dates (a later one), weekends skipped. */
function businessDaysBetween(from: string, to: string): number {
  let n = 0;
  for (let at = Date.parse(`${from}T12:00:00Z`); at < Date.parse(`${to}T12:00:00Z`); ) {
    at += 86_400_000;
    const day = new Date(at).getUTCDay();
    if (day !== 0 && day !== 6) n++;
  }
  return n;
}

describe("the plan of a late or stalled order", () => {
  const one = () => request({ orderLines: [{ itemNumber: "LAPTOP-14", quantity: 1 }] });

  it("a late order's estimate is on time when shipped, then slips by slipDays business days", () => {
    const req = one();
    const updates = parcelUpdates(plan(req, { late: { slipDays: 3, recovers: false } }));
    expect(updates.map((u) => u.status)).toEqual(["shipped", "in_transit", "out_for_delivery", "delivered"]);
    const first = updates[0]?.estimatedDelivery as string;
    const slipped = updates[1]?.estimatedDelivery as string;
    expect(businessDaysBetween(first, slipped)).toBe(3);
    // It stays slipped to the end.
    expect(updates.slice(1).every((u) => u.estimatedDelivery === slipped)).toBe(true);
  });

  it("one that recovers gets its first estimate back in a later update", () => {
    const updates = parcelUpdates(plan(one(), { late: { slipDays: 5, recovers: true } }));
    expect(updates.map((u) => u.status)).toEqual([
      "shipped",
      "in_transit",
      "in_transit",
      "out_for_delivery",
      "delivered",
    ]);
    const first = updates[0]?.estimatedDelivery as string;
    expect(businessDaysBetween(first, updates[1]?.estimatedDelivery as string)).toBe(5);
    expect(updates.slice(2).map((u) => u.estimatedDelivery)).toEqual([first, first, first]);
  });

  it("an order of several parcels slips as one: one slipped date for all, told once, and back once", () => {
    let split = 0;
    for (let i = 0; i < 300; i++) {
      for (const deliveryAt of ["Office", "Home"] as const) {
        const req = request({
          externalDocumentNumber: `LATE-${deliveryAt}-${i}`,
          shipping: { ...validOrder().shipping, deliveryAt },
          orderLines: ["LAPTOP-14", "MON-27-4K", "DOCK-USB-C", "HEADSET"].map((itemNumber) => ({
            itemNumber,
            quantity: 1,
          })),
        });
        const usual = parcelUpdates(plan(req)).filter((u) => u.status === "shipped");
        if (usual.length < 2) continue;
        split++;
        // Needed by the latest usual estimate: in time unless the order slips.
        const neededBy = usual.map((u) => u.estimatedDelivery as string).sort()[usual.length - 1] as string;
        for (const recovers of [true, false]) {
          const steps = plan(req, { late: { slipDays: 3, recovers } });
          const updates = parcelUpdates(steps);
          const slipped = new Set(
            updates.filter((u) => u.estimatedDelivery !== usualOf(usual, u)).map((u) => u.estimatedDelivery),
          );
          expect([...slipped]).toHaveLength(1);
          expect(businessDaysBetween(neededBy, [...slipped][0] as string)).toBe(3);
          // As Order Desk reads it: the order's estimate is the latest of its parcels' newest ones.
          const newest = new Map<number, string>();
          const late: boolean[] = [];
          for (const u of updates) {
            newest.set(u.parcel.number, u.estimatedDelivery as string);
            const isLate = [...newest.values()].some((estimate) => estimate > neededBy);
            if (late.at(-1) !== isLate) late.push(isLate);
          }
          expect(late).toEqual(recovers ? [false, true, false] : [false, true]);
          // No parcel is on the van (or delivered) when the slip or the recovery is told.
          const told = steps.filter(
            (s) => s.type === "order.shipping_updated" && s.data.status === "in_transit",
          );
          const lastTold = Math.max(...told.map((s) => s.offsetMs));
          const firstOut = Math.min(
            ...steps
              .filter((s) => s.type === "order.shipping_updated" && s.data.status === "out_for_delivery")
              .map((s) => s.offsetMs),
          );
          expect(lastTold).toBeLessThan(firstOut);
        }
      }
    }
    expect(split).toBeGreaterThan(50);
  });

  it("a fault draws nothing from the generator: everything else plays as without it", () => {
    const req = request();
    const normal = plan(req);
    const late = plan(req, { late: { slipDays: 2, recovers: true } }).filter(
      (s) => !(s.type === "order.shipping_updated" && s.data.status === "in_transit"),
    );
    const strip = (steps: PlannedEvent[]) =>
      steps.map((s) => ({ ...s, data: { ...s.data, estimatedDelivery: undefined } }));
    expect(strip(late)).toEqual(strip(normal));
  });

  it("a stalled order stops after in_fulfilment; a silent one sends nothing at all", () => {
    expect(statuses(plan(one(), { stall: { silent: false } }))).toEqual([
      "received",
      "validated",
      "in_fulfilment",
    ]);
    expect(parcelUpdates(plan(one(), { stall: { silent: false } }))).toEqual([]);
    expect(plan(one(), { stall: { silent: true } })).toEqual([]);
  });
});

describe("late and stalled orders over HTTP", () => {
  async function setup(dialect: SandboxDialect, options: Parameters<typeof startSandbox>[0] = {}) {
    const receiver = await startReceiver(() => 204);
    running.push(receiver);
    const sandbox = await startSandbox({
      apiKeys: [KEY],
      webhookUrl: receiver.url,
      ...(dialect === "default" ? { webhookSecret: SECRET } : { webhookSecret: "alt-dialect-test-secret-1" }),
      dialect,
      speed: 60_000,
      seed: "late-http",
      ...options,
    });
    running.unshift(sandbox);
    return { sandbox, receiver };
  }

  const bodiesOf = (receiver: Receiver, number: string) =>
    receiver.received
      .map((r) => JSON.parse(r.body) as Record<string, unknown>)
      .filter((b) => JSON.stringify(b).includes(number));

  for (const dialect of ["default", "alt"] as const) {
    it(`${dialect} dialect: the slipped and the recovered estimates go out on the wire (matched by item number)`, async () => {
      const { sandbox, receiver } = await setup(dialect, {
        late: [{ match: "MON-27-4K", slipDays: 4, recovers: true }],
      });
      const number = uniqueNumber("LATE");
      const answer = await createOrder(
        sandbox.url,
        validOrder({
          externalDocumentNumber: number,
          orderLines: [{ itemNumber: "MON-27-4K", quantity: 1 }],
        }),
      );
      expect(answer.status).toBe(200);
      const estimates = await waitFor(
        () => {
          const bodies = bodiesOf(receiver, number);
          const shipments = bodies.flatMap((b) => {
            if (dialect === "default") {
              const data = b.data as { status?: string; estimatedDelivery?: string; parcel?: unknown };
              return b.type === "order.shipping_updated" ? [[data.status, data.estimatedDelivery]] : [];
            }
            const shipment = b.shipment as { state?: string; eta?: string } | undefined;
            return shipment ? [[shipment.state?.toLowerCase(), shipment.eta]] : [];
          });
          return shipments.length === 5 ? shipments : undefined;
        },
        5_000,
        "five shipping updates",
      );
      const [first, slipped, recovered] = estimates.map((e) => e[1] as string);
      expect(estimates.map((e) => e[0])).toEqual([
        "shipped",
        "in_transit",
        "in_transit",
        "out_for_delivery",
        "delivered",
      ]);
      expect(businessDaysBetween(first as string, slipped as string)).toBe(4);
      expect(recovered).toBe(first);
    });
  }

  it("the fault controls: a stall by customer reference set at run time applies to orders accepted after it", async () => {
    const { sandbox, receiver } = await setup("default");
    const before = uniqueNumber("BEFORE");
    await createOrder(
      sandbox.url,
      validOrder({ externalDocumentNumber: before, customerReference: "HIRE-7" }),
    );
    sandbox.setFaults({ stall: [{ match: "HIRE-7" }], late: [{ match: "NOT-THIS-ONE" }] });
    expect(sandbox.faults().stall).toEqual([{ match: "HIRE-7" }]);
    const stalled = uniqueNumber("STALL");
    const answer = await createOrder(
      sandbox.url,
      validOrder({ externalDocumentNumber: stalled, customerReference: "HIRE-7" }),
    );
    const correlationId = (answer.json as { data: { correlationId: string } }).data.correlationId;
    await waitFor(
      () => bodiesOf(receiver, before).some((b) => (b.data as { status?: string }).status === "delivered"),
      5_000,
      "the earlier order delivered",
    );
    const detail = await waitFor(async () => {
      const order = await sandbox.order(correlationId);
      return order && order.events.length === 3 ? order : undefined;
    });
    expect(detail.status).toBe("in_fulfilment");
    expect(detail.upcoming).toEqual([]);
    expect(bodiesOf(receiver, stalled).map((b) => (b.data as { status?: string }).status)).toEqual([
      "received",
      "validated",
      "in_fulfilment",
    ]);
  });

  it("a silent stall by document number: accepted, and not a single event", async () => {
    const number = uniqueNumber("SILENT");
    const { sandbox, receiver } = await setup("default", { stall: [{ match: number, silent: true }] });
    const other = uniqueNumber("OTHER");
    const answer = await createOrder(sandbox.url, validOrder({ externalDocumentNumber: number }));
    expect(answer.status).toBe(200);
    await createOrder(sandbox.url, validOrder({ externalDocumentNumber: other }));
    await waitFor(() => bodiesOf(receiver, other).length >= 8, 5_000, "the other order's events");
    expect(bodiesOf(receiver, number)).toEqual([]);
    const correlationId = (answer.json as { data: { correlationId: string } }).data.correlationId;
    expect((await sandbox.order(correlationId))?.eventsPlanned).toBe(0);
  });

  it("refuses a rule without a match, or a slip that is not whole business days", async () => {
    await expect(startSandbox({ late: [{ match: " " }] })).rejects.toThrow(/match/);
    await expect(startSandbox({ late: [{ match: "X", slipDays: 0.5 }] })).rejects.toThrow(/slipDays/);
    const { sandbox } = await setup("default");
    expect(() => sandbox.setFaults({ stall: [{ match: "" }] })).toThrow(/stall/);
  });
});

describe("order-desk sandbox --late / --stall", () => {
  function run(argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const signals = new EventEmitter();
    let onReady: (handle: SandboxHandle) => void = () => {};
    const ready = new Promise<SandboxHandle>((resolve) => {
      onReady = resolve;
    });
    const exit = runSandbox(argv, {
      stdout: { write: (chunk: string) => out.push(chunk) },
      stderr: { write: (chunk: string) => err.push(chunk) },
      signals,
      logger: pino({ level: "silent" }),
      onReady,
    });
    return {
      exit,
      ready,
      out: () => out.join(""),
      err: () => err.join(""),
      stop: () => {
        signals.emit("SIGTERM");
        return exit;
      },
    };
  }

  it("takes the late and stalled orders from its flags and says so", async () => {
    const sandbox = run([
      "--port",
      "0",
      "--late",
      "MON-27-4K",
      "--late",
      "HIRE-1",
      "--slip-days",
      "5",
      "--recovers",
      "--stall",
      "KB-UK",
      "--stall-silent",
      "PO-9",
    ]);
    const handle = await sandbox.ready;
    expect(handle.faults().late).toEqual([
      { match: "MON-27-4K", slipDays: 5, recovers: true },
      { match: "HIRE-1", slipDays: 5, recovers: true },
    ]);
    expect(handle.faults().stall).toEqual([{ match: "KB-UK" }, { match: "PO-9", silent: true }]);
    expect(sandbox.out()).toContain("late: MON-27-4K (estimate slips 5 business days, then recovers)");
    expect(sandbox.out()).toContain("stalled: PO-9 (accepted, then no event at all)");
    expect(await sandbox.stop()).toBe(0);
  });

  it("lists every bad flag at once", async () => {
    const sandbox = run(["--port", "0", "--slip-days", "0", "--recovers", "--stall", " "]);
    expect(await sandbox.exit).toBe(2);
    expect(sandbox.err()).toContain("--slip-days must be a whole number of business days from 1 to 60");
    expect(sandbox.err()).toContain("--slip-days and --recovers apply to --late orders");
    expect(sandbox.err()).toContain("--stall needs an item number");
  });
});
