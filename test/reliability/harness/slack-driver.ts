/**
 * The Slack side of an order, as a person and Slack behave when the app is flaky: `/order TICKET` (retried with
 * a fresh trigger until a modal opens), the form filled once, then Submit — pressed again while the app gives
 * no answer, an error status or the "could not save, submit again" inline error, exactly as a user would (Slack
 * sends the same view id each time, so the app's idempotency key makes the retries safe). An order counts as
 * accepted only when a submission got a 200 that closed the modal. Over HTTP or Socket Mode (`requestsFor`): in
 * Socket Mode "no answer" is Slack's dispatch_failed (no connection open) or a missing ack.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { FakeSlack } from "../../../tools/fake-slack/index.ts";
import { SlackUser } from "../../../tools/fake-slack/index.ts";
import type { TypedValue } from "../../../tools/fake-slack/view-state.ts";
import { createSlackRequests, type SlackRequests } from "../../../tools/slack-requests.ts";
import { createSocketModeRequests } from "../../../tools/socket-mode-requests.ts";
import { AGENT, type World } from "./world.ts";

export interface OrderSpec {
  ticket: string;
  channel: string;
}

export interface OrderOutcome extends OrderSpec {
  accepted: boolean;
  viewId: string | null;
  commandAttempts: number;
  submitAttempts: number;
  /** What went wrong along the way (connection refused, 5xx, inline errors other than "submit again"). */
  problems: string[];
}

/** A valid one-line order (one parcel: fewer events, so the run stays short). */
export function orderForm(ticket: string): Record<string, TypedValue> {
  const n = Number(ticket.replace(/\D/g, "")) || 1;
  return {
    first_name: "Rel",
    last_name: `Tester ${n}`,
    email: `rel.tester.${n}@example.com`,
    phone: "+31 20 555 0199",
    delivery_at: n % 2 === 0 ? "Office" : "Home",
    company: "Acme BV",
    address1: `Herengracht ${n}`,
    city: "Amsterdam",
    zip: "1017 CB",
    country: { value: "NL", text: "Netherlands (NL)" },
    line_0_item: { value: "LAP-14-PRO", text: 'Laptop 14" Pro (LAP-14-PRO)' },
    line_0_quantity: "1",
  };
}

/** What Slack sends the world's Order Desk: signed requests to its HTTP port, or envelopes over its socket. */
export function requestsFor(world: World): SlackRequests {
  return world.slackMode === "socket"
    ? createSocketModeRequests({
        socketMode: world.fake.socketMode,
        teamId: world.fake.teamId,
        appId: world.fake.appId,
      })
    : slackRequests(world.fake, world.appUrl, world.signingSecret);
}

export function slackRequests(fake: FakeSlack, appUrl: string, signingSecret: string): SlackRequests {
  return createSlackRequests({
    url: `${appUrl}/slack/events`,
    signingSecret,
    teamId: fake.teamId,
    appId: fake.appId,
    timeoutMs: 5_000,
  });
}

const SUBMIT_AGAIN = /submit again/i;

/** Places one order the way a person would, retrying through outages until `deadline`. */
export async function orderThroughSlack(
  fake: FakeSlack,
  requests: SlackRequests,
  spec: OrderSpec,
  options: { deadline: number; userId?: string; retryDelayMs?: number; abort?: () => boolean },
): Promise<OrderOutcome> {
  const user = new SlackUser({ fake, requests, userId: options.userId ?? AGENT, timeoutMs: 4_000 });
  const retryDelayMs = options.retryDelayMs ?? 250;
  const outcome: OrderOutcome = {
    ...spec,
    accepted: false,
    viewId: null,
    commandAttempts: 0,
    submitAttempts: 0,
    problems: [],
  };
  const note = (problem: string) => {
    if (outcome.problems.length < 20) outcome.problems.push(problem);
  };
  const giveUp = () => Date.now() > options.deadline || options.abort?.() === true;

  while (outcome.viewId === null) {
    if (giveUp()) return outcome;
    outcome.commandAttempts++;
    try {
      const { response, triggerId } = await user.runCommand({
        channel: spec.channel,
        command: "/order",
        text: spec.ticket,
      });
      if (response.status !== 200) throw new Error(`/order answered HTTP ${response.status}`);
      const view = await user.openedModal(triggerId);
      outcome.viewId = view.id;
    } catch (error) {
      note(`/order: ${(error as Error).message}`);
      await sleep(retryDelayMs);
    }
  }

  user.fill(outcome.viewId, orderForm(spec.ticket));
  for (;;) {
    if (giveUp()) return outcome;
    outcome.submitAttempts++;
    try {
      const submission = await user.submit(outcome.viewId);
      if (submission.response.status !== 200) {
        note(`submit: HTTP ${submission.response.status}`);
      } else if (submission.outcome.outcome === "closed") {
        outcome.accepted = true;
        return outcome;
      } else {
        const errors = JSON.stringify(fake.view(outcome.viewId)?.errors ?? {});
        note(`submit: ${submission.outcome.outcome} ${errors}`);
        // Anything but "could not save, submit again" is an answer: the order was refused.
        if (!SUBMIT_AGAIN.test(errors)) return outcome;
      }
    } catch (error) {
      note(`submit: ${(error as Error).message}`);
    }
    await sleep(retryDelayMs);
  }
}

/** Runs `specs` with `concurrency` agents in parallel, each pausing `thinkMs()` between orders. */
export async function orderAll(
  specs: OrderSpec[],
  concurrency: number,
  place: (spec: OrderSpec) => Promise<OrderOutcome>,
  thinkMs: () => number,
): Promise<OrderOutcome[]> {
  const results: OrderOutcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const spec = specs[next++];
        if (!spec) return;
        results.push(await place(spec));
        await sleep(thinkMs());
      }
    }),
  );
  return results;
}
