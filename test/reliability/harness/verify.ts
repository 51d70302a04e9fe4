/**
 * The end state, judged from outside Order Desk only: what the supplier holds (the sandbox) and what people see
 * in Slack (the fake workspace). Every accepted order placed exactly once, counted by ticket (customerReference):
 * a retry that got a new document number would be a second order the sandbox accepts, while a second create
 * with the same number is refused by the sandbox itself, so counting by number could never find a double. One
 * originating message each, and every event the supplier emitted exactly once in that message's thread, in
 * `occurredAt` order.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { SandboxHandle } from "../../../src/sandbox/sandbox.ts";
import type { FakeMessage, FakeSlack } from "../../../tools/fake-slack/index.ts";
import type { OrderSpec } from "./slack-driver.ts";

export interface OrderFigures {
  ordersSubmitted: number;
  ordersAccepted: number;
  ordersPlaced: number;
  ordersDoubled: number;
  ordersLost: number;
  originMessagesMissing: number;
  originMessagesDoubled: number;
}

export interface EventFigures {
  eventsSent: number;
  eventsPosted: number;
  eventsDoubled: number;
  eventsLost: number;
  /** Threads whose replies are not in occurredAt order. */
  eventsOutOfOrder: number;
}

export interface Verdict {
  orders: OrderFigures;
  events: EventFigures;
  /** Every order delivered by the supplier, every event delivered and in its thread. */
  settled: boolean;
  problems: string[];
}

function eventIdOf(message: FakeMessage): string | undefined {
  const payload = (message.metadata as { event_payload?: { event_id?: unknown } } | undefined)?.event_payload;
  return typeof payload?.event_id === "string" ? payload.event_id : undefined;
}

/** The top-level messages Order Desk posted about this ticket (what people see as "the order"). */
export function originMessages(fake: FakeSlack, spec: OrderSpec): FakeMessage[] {
  const ticket = new RegExp(`\\b${spec.ticket}\\b`);
  return fake
    .topLevel(spec.channel)
    .filter((m) => m.isBot && m.versions.some((v) => ticket.test(v.text) || ticket.test(m.text)));
}

export async function verify(
  sandbox: SandboxHandle,
  fake: FakeSlack,
  submitted: number,
  accepted: readonly OrderSpec[],
): Promise<Verdict> {
  const problems: string[] = [];
  const note = (problem: string) => {
    if (problems.length < 60) problems.push(problem);
  };
  const atSupplier = await sandbox.orders({ limit: 100_000 });
  const byTicket = new Map<string, typeof atSupplier>();
  for (const order of atSupplier) {
    const ticket = order.customerReference ?? "";
    byTicket.set(ticket, [...(byTicket.get(ticket) ?? []), order]);
  }
  const orders: OrderFigures = {
    ordersSubmitted: submitted,
    ordersAccepted: accepted.length,
    ordersPlaced: 0,
    ordersDoubled: 0,
    ordersLost: 0,
    originMessagesMissing: 0,
    originMessagesDoubled: 0,
  };
  const events: EventFigures = {
    eventsSent: 0,
    eventsPosted: 0,
    eventsDoubled: 0,
    eventsLost: 0,
    eventsOutOfOrder: 0,
  };
  let settled = true;

  for (const spec of accepted) {
    const placed = byTicket.get(spec.ticket) ?? [];
    if (placed.length === 0) {
      orders.ordersLost++;
      settled = false;
      note(`${spec.ticket}: accepted but not placed at the supplier`);
      continue;
    }
    orders.ordersPlaced++;
    if (placed.length > 1) {
      orders.ordersDoubled++;
      note(`${spec.ticket}: placed ${placed.length} times (${placed.map((o) => o.externalDocumentNumber)})`);
    }
    const origins = originMessages(fake, spec);
    if (origins.length === 0) {
      orders.originMessagesMissing++;
      settled = false;
      note(`${spec.ticket}: no order message in ${spec.channel}`);
    } else if (origins.length > 1) {
      orders.originMessagesDoubled++;
      note(`${spec.ticket}: ${origins.length} order messages in ${spec.channel}`);
    }

    for (const order of placed) {
      const detail = await sandbox.order(order.correlationId);
      if (!detail) continue;
      if (detail.upcoming.length > 0) settled = false;
      const emitted = detail.events.map((e) => e.event);
      events.eventsSent += emitted.length;
      const occurred = new Map(emitted.map((e) => [e.id, Date.parse(e.occurredAt)]));
      const replies = origins.flatMap((origin) => fake.thread(spec.channel, origin.ts));
      const posted = replies.map(eventIdOf).filter((id): id is string => id !== undefined);
      const postedAt = (id: string) =>
        replies
          .filter((m) => eventIdOf(m) === id)
          .map((m) => new Date(m.postedAt).toISOString().slice(11, 23))
          .join(", ");
      const seen = new Map<string, number>();
      for (const id of posted) seen.set(id, (seen.get(id) ?? 0) + 1);
      const missing: string[] = [];
      for (const e of emitted) {
        const n = seen.get(e.id) ?? 0;
        if (n === 0) {
          events.eventsLost++;
          settled = false;
          const delivery = detail.events.find((d) => d.event.id === e.id)?.delivery;
          missing.push(`${e.type.replace("order.", "")}[${delivery?.state}]`);
        } else {
          events.eventsPosted++;
          if (n > 1) {
            events.eventsDoubled++;
            note(`${spec.ticket}: event ${e.type} ${e.id} posted ${n} times, at ${postedAt(e.id)}`);
          }
        }
      }
      if (missing.length > 0) {
        note(
          `${spec.ticket}: ${missing.length} of ${emitted.length} events not in the thread ` +
            `(supplier delivery state: ${missing.join(", ")})`,
        );
      }
      for (const id of seen.keys()) {
        if (!occurred.has(id))
          note(`${spec.ticket}: a reply names event ${id}, which the supplier never sent`);
      }
      const times = posted.map((id) => occurred.get(id) ?? 0);
      if (times.some((t, i) => i > 0 && t < (times[i - 1] ?? 0))) {
        events.eventsOutOfOrder++;
        const byId = new Map(emitted.map((e) => [e.id, e]));
        const describe = (id: string) => {
          const e = byId.get(id);
          const what = (e?.data as { status?: string } | undefined)?.status ?? "?";
          return `${e?.type.replace("order.", "")}:${what}@${e?.occurredAt.slice(11, 23)}`;
        };
        note(`${spec.ticket}: thread out of occurredAt order: ${posted.map(describe).join(" → ")}`);
      }
      if (detail.events.some((e) => e.delivery.state === "pending")) settled = false;
    }
  }
  return { orders, events, settled, problems };
}

/**
 * Polls `verify` until everything settled, for as long as it makes progress: it gives up when nothing moved (no
 * order placed, no event delivered or posted) for `stallMs`, or at `capMs` in all. Posting is paced per channel
 * like Slack's limits, so how long a backlog takes depends on the machine's speed; a fixed deadline failed
 * healthy runs on a busy machine, a stall is what a lost update looks like. Then waits `quietMs` more and judges
 * once more.
 */
export async function verifyWhenSettled(
  sandbox: SandboxHandle,
  fake: FakeSlack,
  submitted: number,
  accepted: readonly OrderSpec[],
  options: { stallMs: number; capMs: number; quietMs?: number; abort?: () => boolean },
): Promise<Verdict & { waitedMs: number }> {
  const t0 = Date.now();
  const progress = (v: Verdict) => `${v.orders.ordersPlaced}/${v.events.eventsSent}/${v.events.eventsPosted}`;
  let verdict = await verify(sandbox, fake, submitted, accepted);
  let last = progress(verdict);
  let movedAt = Date.now();
  while (
    !verdict.settled &&
    Date.now() - movedAt < options.stallMs &&
    Date.now() - t0 < options.capMs &&
    options.abort?.() !== true
  ) {
    await sleep(500);
    verdict = await verify(sandbox, fake, submitted, accepted);
    if (progress(verdict) !== last) {
      last = progress(verdict);
      movedAt = Date.now();
    }
  }
  const waitedMs = Date.now() - t0;
  // A late duplicate would appear after the last expected reply: give it the chance to.
  await sleep(options.quietMs ?? 1_500);
  return { ...(await verify(sandbox, fake, submitted, accepted)), waitedMs };
}

/**
 * Waits until `done(read())`, for as long as what `read` returns keeps changing: gives up when it stood still for
 * `stallMs` (what a lost piece of work looks like), never at a fixed deadline that a busy machine would miss.
 */
export async function waitWhileMoving<T>(
  read: () => T,
  done: (value: T) => boolean,
  options: { stallMs: number; what: string },
): Promise<T> {
  let value = read();
  let last = JSON.stringify(value);
  let movedAt = Date.now();
  while (!done(value)) {
    if (Date.now() - movedAt >= options.stallMs) {
      throw new Error(`${options.what}: nothing moved for ${options.stallMs} ms; last seen ${last}`);
    }
    await sleep(250);
    value = read();
    const now = JSON.stringify(value);
    if (now !== last) {
      last = now;
      movedAt = Date.now();
    }
  }
  return value;
}
