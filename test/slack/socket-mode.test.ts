/**
 * Socket Mode's promises, over the fake Slack's real WebSocket with Bolt's own client: a connection replaced at
 * Slack's request or dropped mid-burst loses and doubles nothing; apps.connections.open failing again and again
 * never ends the process and leaves it reporting not connected until Slack is back; an event Slack sends again
 * after a late ack places no second order; a token Slack refuses fails the start with a readable reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics, type Metrics } from "../../src/metrics.ts";
import { withWorkflowSteps } from "../../src/orders/workflow/placement-job.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { createSlackApp } from "../../src/slack/app.ts";
import * as functions from "../../src/slack/listeners/functions/index.ts";
import { createSlackWorkflowFunctions } from "../../src/slack/outbound/index.ts";
import { SlackAppTokenRefusedError } from "../../src/slack/socket-errors.ts";
import { EXAMPLE_DELIVERY } from "../../tools/example-form.ts";
import { runWorkflowStep, SlackUser, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { fakeSlackToken } from "../../tools/fake-tokens.ts";
import { createSocketModeRequests } from "../../tools/socket-mode-requests.ts";
import { type SlackWorld, startSlackWorld } from "../helpers/slack-world.ts";
import { onboardingInputs } from "../workflow/support/harness.ts";
import { captureLog } from "./support/log.ts";

const BOT_TOKEN = fakeSlackToken("xoxb", "sockettest");
const AGENT = "U0AGENT01";
const HELPDESK = "C0HELPDESK";

let sandbox: SandboxHandle;
let w: SlackWorld;
let metrics: Metrics;
const log = captureLog();

beforeAll(async () => {
  const key = generateTestKey();
  sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "socket-mode" });
  metrics = createMetrics({ defaultMetrics: false });
  w = await startSlackWorld({
    transport: "socket",
    botToken: BOT_TOKEN,
    signingSecret: "unused-in-socket-mode",
    users: [
      { id: AGENT, name: "alice", realName: "Alice Agent" },
      { id: "U0NEWHIRE", name: "nina", realName: "Nina Newhire" },
    ],
    channels: [
      { id: HELPDESK, name: "helpdesk" },
      { id: "C0ONBOARD", name: "onboarding" },
      { id: "C0ITADMIN", name: "it-admin" },
    ],
    supplierUrl: sandbox.url,
    apiKey: key,
    supplierRetry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
    placeOrderPolicy: { retryDelaySeconds: 1, retryLimit: 3 },
    slackTimeoutMs: 1_000,
    // Slack closes a connection it asked to replace some seconds later (~10 s); here after its ack deadline.
    fakeSocketMode: { closeAfterDisconnectMs: 3_000 },
    // Fast backoff so that twenty failures take well under a second; Slack's own deadlines otherwise.
    socket: { metrics, reconnect: { baseMs: 5, maxMs: 40 } },
    logger: log.logger,
    register: (app, ctx) => functions.register(app, ctx, { deadlineMs: 60_000 }),
    wrapPlaceOrder: (placeOrder, { store, jobs, slack, fake }) =>
      withWorkflowSteps(placeOrder, {
        store,
        jobs,
        notifier: slack.notifier,
        functions: createSlackWorkflowFunctions({ token: BOT_TOKEN, apiUrl: fake.apiUrl, timeoutMs: 5000 }),
      }),
  });
});

afterAll(async () => {
  await w?.close();
  await sandbox?.close();
});

const connected = () => w.fake.socketMode.openConnections().length > 0;

/**
 * One agent's order, as a person places it: `/order`, the form, Submit — each step tried again (once a
 * connection is open) when Slack could not deliver it or got no ack, as Slack then shows the person an error.
 */
async function placeOrder(ticket: string): Promise<{ viewId: string; retries: number }> {
  const agent = new SlackUser({ fake: w.fake, requests: w.requests, userId: AGENT, timeoutMs: 5_000 });
  let retries = 0;
  let viewId: string | null = null;
  while (viewId === null) {
    try {
      const { triggerId } = await agent.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
      viewId = (await agent.openedModal(triggerId)).id;
    } catch {
      retries++;
      await w.fake.waitFor(connected, { what: "an open connection" });
    }
  }
  agent.fill(viewId, { ...EXAMPLE_DELIVERY, ticket, profile: "Acme EU" });
  for (;;) {
    try {
      const submitted = await agent.submit(viewId);
      if (submitted.outcome.outcome === "closed") return { viewId, retries };
      throw new Error(
        `the modal answered ${submitted.outcome.outcome}: ${JSON.stringify(submitted.response.body)}`,
      );
    } catch (error) {
      if ((error as Error).message.startsWith("the modal answered")) throw error;
      retries++;
      await w.fake.waitFor(connected, { what: "an open connection" });
    }
  }
}

/** Polls an asynchronous condition (the sandbox and the store answer over the wire) until it holds. */
async function eventually(
  what: string,
  condition: () => Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function placedAtSupplier(tickets: string[]): Promise<Map<string, number>> {
  const counts = new Map(tickets.map((t) => [t, 0]));
  for (const order of await sandbox.orders({ limit: 10_000 })) {
    const ticket = order.customerReference ?? "";
    if (counts.has(ticket)) counts.set(ticket, (counts.get(ticket) ?? 0) + 1);
  }
  return counts;
}

async function storedOrders(tickets: string[]): Promise<number[]> {
  const { rows } = await w.store.query(
    "SELECT customer_reference AS t, count(*)::int AS n FROM orders WHERE customer_reference = ANY($1) GROUP BY 1",
    [tickets],
  );
  const byTicket = new Map(rows.map((r) => [r.t as string, r.n as number]));
  return tickets.map((t) => byTicket.get(t) ?? 0);
}

async function reconnects(reason: string): Promise<number> {
  const { values } = await metrics.slackSocketReconnects.get();
  return values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

describe.each([
  ["Slack's refresh_requested", "refresh"],
  ["a connection dropped without a word", "drop"],
] as const)("%s in the middle of a burst of orders", (_, fault) => {
  it("reconnects, acks every envelope once and places every order once", async () => {
    const tickets = Array.from({ length: 12 }, (_, i) => `${fault.toUpperCase()}-${i + 1}`);
    const before = w.fake.socketMode.envelopes().length;
    const acksBefore = w.fake.socketMode.acks().length;
    const [first] = w.fake.socketMode.openConnections();
    const burst = Promise.all(tickets.map((ticket) => placeOrder(ticket)));
    // Mid-burst: once a third of the envelopes the burst needs are acked.
    await w.fake.waitFor(() => w.fake.socketMode.acks().length - acksBefore >= 8, { timeoutMs: 10_000 });
    if (fault === "refresh") w.fake.socketMode.disconnect("refresh_requested");
    else w.fake.socketMode.drop();
    const placed = await burst;

    const envelopes = w.fake.socketMode.envelopes().slice(before);
    expect(envelopes.every((e) => e.acks <= 1)).toBe(true);
    const unacked = envelopes.filter((e) => e.ack === undefined);
    if (fault === "refresh") {
      // Make-before-break: nothing failed, nothing was sent again, no moment without a connection.
      expect(unacked).toEqual([]);
      expect(placed.map((p) => p.retries)).toEqual(tickets.map(() => 0));
      const since = w.fake.socketMode.timeline().filter((t) => t.at >= (first?.helloAt ?? 0));
      expect(since.map((t) => t.open)).not.toContain(0);
      const replaced = await w.fake.waitFor(
        () => w.fake.socketMode.connections().find((c) => c.id === first?.id && c.closedAt !== undefined),
        { what: "the replaced connection to close" },
      );
      // Left open until Slack closed it, so that nothing Slack had put on it was lost.
      expect(replaced).toMatchObject({ closedBy: "slack", disconnect: { reason: "refresh_requested" } });
    } else {
      // Only what was in flight on the dropped connection went unanswered; the agents sent it again.
      expect(unacked.every((e) => e.connectionId === first?.id)).toBe(true);
      expect(log.lines().some((l) => l.msg === "Socket Mode connection to Slack lost: reconnecting")).toBe(
        true,
      );
    }
    expect(await reconnects(fault === "refresh" ? "refresh_requested" : "connection_lost")).toBeGreaterThan(
      0,
    );
    expect(await storedOrders(tickets)).toEqual(tickets.map(() => 1));
    await eventually("every order at the supplier", async () =>
      [...(await placedAtSupplier(tickets)).values()].every((n) => n > 0),
    );
    expect([...(await placedAtSupplier(tickets)).values()]).toEqual(tickets.map(() => 1));
    expect(w.slack.socketStatus()).toMatchObject({ connected: true, connections: 1 });
  });
});

describe("a disconnect that arrives with the hello", () => {
  it("is honoured once the connection counts as open: the next connection is opened before this one goes", async () => {
    const before = w.fake.socketMode.connections().length;
    w.fake.socketMode.drop();
    // Told to go in the same tick as its hello, so the app reads both at once.
    const fresh = await w.fake.waitFor(() => w.fake.socketMode.connections()[before], {
      what: "a new connection",
    });
    w.fake.socketMode.disconnect("refresh_requested", fresh.id);
    const replacement = await w.fake.waitFor(() => w.fake.socketMode.connections()[before + 1], {
      what: "the replacement",
    });
    await w.fake.waitFor(() => fresh.closedAt !== undefined, { what: "the told connection to close" });
    expect(replacement.openedAt).toBeLessThanOrEqual(fresh.closedAt ?? 0);
    expect(w.fake.socketMode.openConnections().map((c) => c.id)).toEqual([replacement.id]);
  });
});

describe("apps.connections.open failing again and again", () => {
  it("keeps retrying without ending the process, reports not connected meanwhile, and reconnects when Slack is back", async () => {
    const failuresBefore = await connectFailures();
    w.fake.failNext("apps.connections.open", { httpStatus: 503 }, 20);
    w.fake.hangNext("apps.connections.open", 2);
    w.fake.failNext("apps.connections.open", "internal_error", 3);
    w.fake.socketMode.drop();
    await w.fake.waitFor(() => (w.slack.socketStatus()?.failures ?? 0) >= 10 || undefined, {
      what: "ten failed attempts",
    });
    const down = w.slack.socketStatus();
    expect(down).toMatchObject({ connected: false, connections: 0 });
    expect(down?.lastError).toMatch(/apps\.connections\.open: HTTP 503/);
    expect(down?.downSince).toEqual(expect.any(Number));
    // Meanwhile Slack cannot reach the app, and tells the person so.
    await expect(
      w.requests.slashCommand({
        userId: AGENT,
        command: "/order",
        text: "DOWN-1",
        channelId: HELPDESK,
        triggerId: w.fake.issueTriggerId(AGENT),
      }),
    ).rejects.toMatchObject({ reason: "dispatch_failed" });

    await w.fake.waitFor(() => w.slack.socketStatus()?.connected, {
      what: "the connection back",
      timeoutMs: 15_000,
    });
    expect(w.slack.socketStatus()).toMatchObject({ connected: true, failures: 0, lastError: null });
    expect(await connectFailures()).toEqual({
      http_503: (failuresBefore.http_503 ?? 0) + 20,
      timeout: (failuresBefore.timeout ?? 0) + 2,
      internal_error: (failuresBefore.internal_error ?? 0) + 3,
    });
    const retrying = log
      .lines()
      .filter((l) => l.msg === "could not open a Socket Mode connection to Slack: retrying");
    expect(retrying.length).toBeGreaterThanOrEqual(25);
    expect(
      log.lines().some((l) => l.msg === "Socket Mode connected to Slack" && Number(l.failedAttempts) >= 25),
    ).toBe(true);
    // The capped backoff: no wait above the 40 ms ceiling of this test's settings.
    expect(Math.max(...retrying.map((l) => Number(l.retryInMs)))).toBeLessThanOrEqual(40);
    await placeOrder("BACK-1");
  });
});

async function connectFailures(): Promise<Record<string, number>> {
  const { values } = await metrics.slackSocketConnectFailures.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.error), v.value]));
}

describe("an event Slack sends again after a late ack", () => {
  it("places no second order and completes the step once", async () => {
    w.fake.socketMode.lateAckNext(1);
    const step = await runWorkflowStep(w.fake, w.requests, {
      callbackId: "place_order",
      inputs: onboardingInputs("LATE-1"),
    });
    const deliveries = w.fake.socketMode
      .envelopes({ type: "events_api" })
      .filter(
        (e) =>
          (e.payload.event as { function_execution_id?: string }).function_execution_id ===
          step.functionExecutionId,
      );
    expect(deliveries.map((e) => [e.retryAttempt, e.retryReason, e.acks])).toEqual([
      [0, "", 1],
      [1, "timeout", 1],
    ]);
    expect(deliveries[0]?.ack?.late).toBe(true);
    await w.fake.waitFor(
      () => w.fake.execution(step.functionExecutionId)?.status === "completed" || undefined,
      {
        what: "the step to complete",
        timeoutMs: 15_000,
      },
    );
    expect(await storedOrders(["LATE-1"])).toEqual([1]);
    expect([...(await placedAtSupplier(["LATE-1"])).values()]).toEqual([1]);
    const completions = w.fake
      .calls("functions.completeSuccess")
      .filter((c) => c.args.function_execution_id === step.functionExecutionId);
    expect(completions).toHaveLength(1);
  });
});

describe("starting", () => {
  const app = (appToken: string, apiUrl: string, pingTimeoutMs?: number) =>
    createSlackApp({
      mode: "socket",
      botToken: BOT_TOKEN,
      botIdentity: { botUserId: "U0ORDERBOT", botId: "B0ORDERBOT" },
      appToken,
      slackApiUrl: apiUrl,
      timeoutMs: 1_000,
      customer: w.slack.context.customer,
      store: w.store,
      jobs: w.jobs,
      socket: { reconnect: { baseMs: 5, maxMs: 40 }, ...(pingTimeoutMs ? { pingTimeoutMs } : {}) },
    });

  it("fails with the reason and what to do when Slack refuses the app-level token", async () => {
    const refused = app(fakeSlackToken("xapp", "notthetoken"), w.fake.apiUrl);
    const error = await refused.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlackAppTokenRefusedError);
    expect((error as Error).message).toMatch(/invalid_auth — SLACK_APP_TOKEN is not valid/);
    expect(refused.socketStatus()).toMatchObject({ connected: false });
    await refused.stop();
  });

  it("starts while Slack is unreachable and connects once it answers", async () => {
    const fake = await startFakeSlack({ botToken: BOT_TOKEN });
    try {
      fake.failNext("apps.connections.open", { httpStatus: 503 }, 5);
      const late = app(fakeSlackToken("xapp", "0123"), fake.apiUrl);
      await late.start();
      expect(late.socketStatus()?.connected).toBe(false);
      await fake.waitFor(() => late.socketStatus()?.connected || undefined, { what: "the first connection" });
      expect(fake.calls("apps.connections.open").filter((c) => c.httpStatus === 503)).toHaveLength(5);
      await late.stop();
      const [closed] = fake.socketMode.connections();
      await fake.waitFor(() => closed?.closedBy, { what: "the connection closed" });
      expect(closed?.closedBy).toBe("app");
    } finally {
      await fake.close();
    }
  });

  it("gives up a connection that went silent (no pongs) and opens another", async () => {
    const fake = await startFakeSlack({ botToken: BOT_TOKEN });
    const silent = app(fakeSlackToken("xapp", "0123"), fake.apiUrl, 600);
    try {
      await silent.start();
      fake.socketMode.stall();
      // The silent one is closed by the app (its pongs stopped) and another one is open.
      await fake.waitFor(
        () => {
          const [first, second] = fake.socketMode.connections();
          return first?.closedAt !== undefined && second?.closedAt === undefined && connectedTo(fake);
        },
        { what: "a second connection after the silent one", timeoutMs: 10_000 },
      );
      const requests = createSocketModeRequests({
        socketMode: fake.socketMode,
        teamId: fake.teamId,
        appId: fake.appId,
      });
      const answer = await requests.blockSuggestion({
        userId: AGENT,
        view: { id: "V0", type: "modal", callback_id: "order_modal", private_metadata: "" },
        actionId: "country",
        blockId: "country",
        value: "germ",
      });
      expect(answer.body).toMatchObject({ options: [{ value: "DE" }] });
    } finally {
      await silent.stop();
      await fake.close();
    }
  });
});

function connectedTo(fake: { socketMode: { openConnections(): unknown[] } }): boolean {
  return fake.socketMode.openConnections().length > 0;
}
