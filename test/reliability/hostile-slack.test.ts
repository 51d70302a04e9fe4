/**
 * Hostile input from the Slack side, over Order Desk's real HTTP receiver (Bolt, HTTP mode):
 * - fast-check on the order modal's `view_submission` (state values of every wrong type, unicode, huge values,
 *   `__proto__`/`constructor` keys, crafted `private_metadata`) and on the Workflow Builder step's inputs: never
 *   a crash or a 5xx, always the modal closed (a real order) or inline errors on blocks the modal has, a failed
 *   step with a readable message, nothing stored from a refused input, no prototype pollution;
 * - Slack's request signature: bad or missing signature, old or future timestamp → refused before any handler
 *   runs (no Slack call made, nothing stored);
 * - a user the profile does not allow cannot place an order by any path: modal, message shortcut, the
 *   "Fix and resubmit" button, a crafted `private_metadata`;
 * - a forged `private_metadata` (edited, unsealed, or sealed for another user) is refused whoever sends it, and a
 *   workflow cannot order with a profile that does not allow workflows;
 * - fuzzed `/order export` texts from an admin and an outsider: always a clear ephemeral answer, a file only for
 *   an admin's valid month and only in their DM, no mention or link acted on;
 * - the admin buttons (Retry now, Mark handled, Retry posting, Attach to order…, Ignore) with forged ids, from
 *   non-admins, and replayed: always answered, never a 5xx; nothing changes but the one admin's one action.
 * - typed order numbers carrying links, mrkdwn, mentions, control characters or too many characters: refused
 *   inline with the safe-character-set message, nothing stored, nothing Slack would act on;
 * - `/order status` for one ticket ordered in private and public channels, asked by members and non-members from
 *   other channels and DMs: only the orders of channels the asker is in (all for the requester and an admin), and
 *   the count of the ones left out.
 */
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION, CALLBACK, FIELD_BLOCK } from "../../src/slack/blocks/ids.ts";
import { createMetadataSeal } from "../../src/slack/metadata.ts";
import { openAttention } from "../../src/store/repositories/attention.ts";
import { type FakeView, runWorkflowStep, SlackUser } from "../../tools/fake-slack/index.ts";
import { type SlackRequests, signSlackRequest } from "../../tools/slack-requests.ts";
import { FUZZ_SEED, fuzzBudget } from "./harness/fuzz-budget.ts";
import { type InProcessDesk, startInProcessDesk, watchForCrashes } from "./harness/in-process.ts";
import { scanFile } from "./harness/logs.ts";
import { record } from "./harness/results.ts";
import { orderForm, slackRequests } from "./harness/slack-driver.ts";
import { waitWhileMoving } from "./harness/verify.ts";
import {
  ADMIN_CHANNEL,
  AGENT,
  CHANNELS,
  OUTSIDER,
  RESTRICTED_CHANNEL,
  startWorld,
  type World,
} from "./harness/world.ts";

const RUNS = Number(process.env.RELIABILITY_FUZZ_RUNS ?? 10_000);
/** Workflow steps sent together per property run (RUNS steps in all). */
const BATCH = 8;
const SEED = FUZZ_SEED;
/** Each fuzzed surface's cap of cases, time budget (s) and time for the rest of its test (ms). */
const FUZZ_CLICKS = fuzzBudget(Math.max(50, Math.floor(RUNS / 50)), 40, 60_000);
const FUZZ_MODAL = fuzzBudget(RUNS, 110, 90_000);
const FUZZ_EXPORT = fuzzBudget(Math.max(20, Math.min(300, Math.ceil(RUNS / 50))), 60, 140_000);
const FUZZ_WORKFLOW = fuzzBudget(Math.ceil(RUNS / BATCH), 120, 120_000);
const FUZZ_EDN = fuzzBudget(Math.max(50, Math.min(500, Math.ceil(RUNS / 20))), 30, 30_000);
const FUZZ_STATUS = fuzzBudget(Math.max(30, Math.min(200, Math.ceil(RUNS / 50))), 40, 60_000);
/** Fuzzed modal orders go here; workflow orders and the resubmission story have their own channels. */
const CHANNEL = CHANNELS[0] as string;
const WORKFLOW_CHANNEL = CHANNELS[1] as string;
const RESUBMIT_CHANNEL = CHANNELS[2] as string;
/** The cross-channel `/order status` lookups: an order in each (the first two private), a channel with none. */
const VIS_CHANNELS = CHANNELS.slice(30, 34);
const OTHER_CHANNEL = CHANNELS[34] as string;
const VIS_TICKET = "XVIS-1";
/** Allowed to order with the reliability profile, requests nothing: sees what the channels they are in show. */
const COLLEAGUE = "U0COLLEAG";
const STATUS_ADMIN = "U0RELADMIN";

type Json = Record<string, unknown>;

const nasty = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\ud800",
    "🦄🦄🦄",
    "\u202eNL",
    "x".repeat(100_000),
    "1e309",
    "-1",
    "0",
    "NaN",
    "999999999999999999999",
    "__proto__",
    "constructor",
    "NL",
    "XX",
    "LAP-14-PRO",
    "Office",
    "Home",
    "Garden",
  ),
  fc.string({ unit: "binary", maxLength: 80 }),
);
/** Anything a field's value could be replaced with, right type or not. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  nasty,
  fc.jsonValue({ maxDepth: 4 }),
  fc.constant(null),
  fc.constant(undefined),
  fc.record({ value: nasty }),
  fc.record({ text: nasty, value: nasty }),
  fc.array(fc.record({ value: nasty }), { maxLength: 3 }),
);

/** A JSON text with `__proto__`/`constructor` as own keys at the given spot (JSON.parse keeps them as keys). */
function protoKeyed(key: string): Json {
  return JSON.parse(
    `{"${key}": {"polluted": "yes", "prototype": {"polluted": "yes"}}, "value": "x"}`,
  ) as Json;
}

/** Polls an async probe until it returns a value (fake.waitFor takes synchronous predicates only). */
async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** Sets an own property, even `__proto__` (plain assignment would change the object's prototype instead). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function ownObject(target: Record<string, unknown>, key: string): Record<string, unknown> {
  const existing = Object.hasOwn(target, key) ? target[key] : undefined;
  if (typeof existing === "object" && existing !== null && !Array.isArray(existing))
    return existing as Record<string, unknown>;
  const created: Record<string, unknown> = {};
  setOwn(target, key, created);
  return created;
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The JSON part of sealed `private_metadata` (`<mac>.<json>`): what anyone holding the view can read. */
function metaOf(privateMetadata: unknown): Json {
  const text = String(privateMetadata);
  return JSON.parse(text.slice(text.indexOf(".") + 1)) as Json;
}

/** Edited JSON behind the MAC that sealed the original. */
function keepMac(privateMetadata: unknown, json: Json): string {
  const text = String(privateMetadata);
  return `${text.slice(0, text.indexOf("."))}.${JSON.stringify(json)}`;
}

describe("Slack requests under hostile input", () => {
  let world: World;
  let app: InProcessDesk;
  let requests: SlackRequests;
  let alice: SlackUser;
  let oscar: SlackUser;
  let base: Json;
  let baseView: FakeView;
  const figures = { inputsTried: 0, crashes: 0, http5xx: 0, leaks: 0 };
  const notes: string[] = [];
  const t0 = Date.now();

  beforeAll(async () => {
    world = await startWorld({ speed: 50, seed: "hostile-slack" });
    app = await startInProcessDesk(world, "hostile-slack");
    requests = slackRequests(world.fake, app.desk.url, world.signingSecret);
    alice = new SlackUser({ fake: world.fake, requests, userId: AGENT, timeoutMs: 5_000 });
    oscar = new SlackUser({ fake: world.fake, requests, userId: OUTSIDER, timeoutMs: 5_000 });
    const { triggerId } = await alice.runCommand({ channel: CHANNEL, command: "/order", text: "FUZZ-1" });
    baseView = await alice.openedModal(triggerId);
    alice.fill(baseView.id, orderForm("FUZZ-1"));
    base = world.fake.viewPayload(baseView.id);
  });

  afterAll(async () => {
    await app?.close();
    await world?.close();
    const leaks = app ? scanFile(app.logFile, world.secrets()) : [];
    figures.leaks += leaks.length;
    notes.push(`seed ${SEED}`, ...leaks.map((l) => `${l.secret} in the log, line ${l.line}`));
    record(
      { scenario: "hostile Slack input", ...figures, durationMs: Date.now() - t0, notes },
      world?.secrets() ?? [],
    );
  });

  const ordersWithKey = async (key: string) =>
    Number(
      (await app.desk.store.query("SELECT count(*)::int AS n FROM orders WHERE idempotency_key = $1", [key]))
        .rows[0]?.n,
    );

  describe("Slack's request signature", () => {
    const tamper = async (
      body: string,
      contentType: string,
      how: "none" | "wrong" | "old" | "future" | "other-secret",
    ) => {
      const now = Math.floor(Date.now() / 1000);
      const headers: Record<string, string> = {};
      let signature: string | undefined;
      let timestampSec: number | undefined;
      if (how === "none") {
        headers["x-slack-signature"] = "";
        headers["x-slack-request-timestamp"] = "";
      } else if (how === "wrong") signature = `v0=${"0".repeat(64)}`;
      else if (how === "old") timestampSec = now - 6 * 60;
      else if (how === "future") timestampSec = now + 6 * 60;
      else
        signature = signSlackRequest({ signingSecret: "an-old-signing-secret", timestampSec: now, body })[
          "x-slack-signature"
        ];
      const res = await requests.send({
        body,
        contentType,
        ...(signature !== undefined && { signature }),
        ...(timestampSec !== undefined && { timestampSec }),
        headers,
      });
      figures.inputsTried++;
      if (res.status >= 500) figures.http5xx++;
      return res;
    };
    const hows = ["none", "wrong", "old", "other-secret"] as const;

    it("refuses a badly signed /order before any handler runs: no modal is opened", async () => {
      const before = world.fake.calls("views.open").length;
      for (const how of hows) {
        const triggerId = world.fake.issueTriggerId(AGENT);
        const body = new URLSearchParams({
          command: "/order",
          text: "SIG-1",
          user_id: AGENT,
          user_name: "alice",
          channel_id: CHANNEL,
          team_id: world.fake.teamId,
          api_app_id: world.fake.appId,
          trigger_id: triggerId,
          response_url: world.fake.responseUrl(),
        }).toString();
        const res = await tamper(body, "application/x-www-form-urlencoded", how);
        expect(res.status, `${how}: ${res.text}`).toBe(401);
      }
      await sleep(300);
      expect(world.fake.calls("views.open").length).toBe(before);
    });

    it("refuses a request stamped 6 minutes in the future, which Bolt alone would accept", async () => {
      const res = await tamper(
        JSON.stringify({ type: "url_verification", challenge: "probe" }),
        "application/json",
        "future",
      );
      expect(res.status, res.text).toBe(401);
    });

    it("refuses a badly signed modal submission and workflow event: nothing stored, no step touched", async () => {
      const view = { ...clone(base), id: "VSIGTEST1", root_view_id: "VSIGTEST1" };
      const payload = JSON.stringify({
        type: "view_submission",
        team: { id: world.fake.teamId, domain: "x" },
        user: { id: AGENT, username: "alice", name: "alice", team_id: world.fake.teamId },
        api_app_id: world.fake.appId,
        trigger_id: "1.2.3",
        view,
      });
      for (const how of hows) {
        const res = await tamper(
          new URLSearchParams({ payload }).toString(),
          "application/x-www-form-urlencoded",
          how,
        );
        expect(res.status, `${how}: ${res.text}`).toBe(401);
      }
      expect(await ordersWithKey("view:VSIGTEST1")).toBe(0);

      const execution = world.fake.startFunctionExecution("place_order", { ticket_id: "SIG-2" });
      const event = JSON.stringify({
        type: "event_callback",
        team_id: world.fake.teamId,
        api_app_id: world.fake.appId,
        event_id: "EvSIGTEST",
        event_time: Math.floor(Date.now() / 1000),
        event: {
          type: "function_executed",
          function: { callback_id: "place_order", id: "Fn1", title: "x", app_id: world.fake.appId },
          inputs: { ticket_id: "SIG-2" },
          function_execution_id: execution.functionExecutionId,
          bot_access_token: execution.botAccessToken,
          event_ts: "1.0",
        },
      });
      for (const how of hows) {
        const res = await tamper(event, "application/json", how);
        expect(res.status, `${how}: ${res.text}`).toBe(401);
      }
      await sleep(300);
      expect(world.fake.execution(execution.functionExecutionId)?.status).toBe("running");
      expect(await ordersWithKey(`function:${execution.functionExecutionId}`)).toBe(0);
    });
  });

  describe("a user the profile does not allow", () => {
    /** Views opened for this trigger that are still the order form, open. */
    const orderFormsOpenedWith = (triggerId: string) =>
      world.fake
        .views({ openedWithTrigger: triggerId })
        .filter((v) => v.status === "open" && v.definition.callback_id === CALLBACK.orderModal)
        .map((v) => v.id);

    /**
     * Oscar was answered (a notice in place of the form, or a message) and no order form stays open for him.
     * Asserted whatever the app chose to show, so the check cannot be skipped.
     */
    const refusedToOscar = async (triggerId: string, responsesBefore: number, what: string) => {
      await until(`${what}: Oscar told he may not order`, 5_000, async () => {
        const notice = world.fake
          .views({ openedWithTrigger: triggerId })
          .some((v) => v.definition.callback_id === CALLBACK.notice);
        return notice || world.fake.responses().length > responsesBefore ? true : undefined;
      });
      expect(orderFormsOpenedWith(triggerId), `${what}: an order form is open for Oscar`).toEqual([]);
    };

    const ordersBy = async (user: string) =>
      Number(
        (await app.desk.store.query("SELECT count(*)::int AS n FROM orders WHERE requested_by = $1", [user]))
          .rows[0]?.n,
      );

    it("cannot order from /order, the message shortcut, a crafted private_metadata or App Home's metadata", async () => {
      // /order: Oscar is told he may not order, and no order form is left open for him.
      const responsesBefore = world.fake.responses().length;
      const { triggerId } = await oscar.runCommand({ channel: CHANNEL, command: "/order", text: "OSC-1" });
      await refusedToOscar(triggerId, responsesBefore, "/order");
      // The message shortcut: the same.
      const ticket = world.fake.postAsUser(CHANNEL, OUTSIDER, "OSC-2: I would like a laptop");
      const shortcutResponsesBefore = world.fake.responses().length;
      const shortcut = await oscar.shortcutOnMessage({
        channel: CHANNEL,
        ts: ticket.ts,
        callbackId: CALLBACK.orderFromMessage,
      });
      await refusedToOscar(shortcut.triggerId, shortcutResponsesBefore, "the message shortcut");
      // Alice's own modal, submitted by Oscar; then crafted metadata for every source and profile.
      const meta = metaOf(base.private_metadata);
      // Sealed with the server's key for Oscar: what a forger could do at best, had they the key.
      const seal = createMetadataSeal(world.botToken);
      const crafted = [
        base.private_metadata,
        JSON.stringify({ ...meta, src: "shortcut", th: ticket.ts }),
        keepMac(base.private_metadata, { ...meta, src: "home", ch: undefined, pf: "Reliability" }),
        keepMac(base.private_metadata, { ...meta, ch: RESTRICTED_CHANNEL, pf: "Restricted" }),
        seal.seal(JSON.stringify({ ...meta, src: "home", ch: undefined, pf: "Reliability" }), OUTSIDER),
        seal.seal(JSON.stringify({ ...meta, ch: RESTRICTED_CHANNEL, pf: "Restricted" }), OUTSIDER),
      ];
      for (const [i, privateMetadata] of crafted.entries()) {
        const view = {
          ...clone(base),
          id: `VOSC${i}`,
          root_view_id: `VOSC${i}`,
          private_metadata: privateMetadata,
        };
        const res = await requests.viewSubmission({ userId: OUTSIDER, view, triggerId: "1.2.3" });
        expect(res.status).toBe(200);
        expect(res.text, `crafted metadata ${i} was accepted`).not.toBe("");
      }
      expect(await ordersBy(OUTSIDER)).toBe(0);
    });

    it("cannot resubmit a refused order through its Fix and resubmit button or a crafted order id", async () => {
      world.gateway.refuseOnce("REF-1");
      const { triggerId } = await alice.runCommand({
        channel: RESUBMIT_CHANNEL,
        command: "/order",
        text: "REF-1",
      });
      const view = await alice.openedModal(triggerId);
      const submitted = await alice.submit(view.id, orderForm("REF-1"));
      expect(submitted.outcome.outcome).toBe("closed");
      const order = await until("REF-1 to be refused by the supplier", 15_000, async () => {
        const { rows } = await app.desk.store.query(
          "SELECT id, status, slack_channel_id AS channel, slack_message_ts AS ts FROM orders WHERE customer_reference = 'REF-1'",
        );
        return rows[0]?.status === "failed" && rows[0]?.ts ? rows[0] : undefined;
      });
      const message = await world.fake.waitFor(
        () => {
          const m = world.fake.message(String(order.channel), String(order.ts));
          return JSON.stringify(m?.versions.at(-1)?.blocks ?? []).includes(ACTION.fixAndResubmit)
            ? m
            : undefined;
        },
        { timeoutMs: 10_000, what: "the Fix and resubmit button" },
      );
      expect(message).toBeDefined();
      const clickResponsesBefore = world.fake.responses().length;
      const click = await oscar.clickInMessage({
        channel: String(order.channel),
        ts: String(order.ts),
        actionId: ACTION.fixAndResubmit,
      });
      expect(click.response.status).toBe(200);
      // He is told why, and no form with the recipient's details opens for him.
      await until("Oscar told he cannot resubmit", 5_000, async () =>
        world.fake.responses().length > clickResponsesBefore ? true : undefined,
      );
      expect(orderFormsOpenedWith(click.triggerId)).toEqual([]);
      const meta = { ...metaOf(base.private_metadata), o: order.id };
      const seal = createMetadataSeal(world.botToken);
      for (const [i, privateMetadata] of [
        JSON.stringify(meta),
        keepMac(base.private_metadata, meta),
        seal.seal(JSON.stringify(meta), OUTSIDER),
      ].entries()) {
        const forged = {
          ...clone(base),
          id: `VOSCRESUB${i}`,
          root_view_id: `VOSCRESUB${i}`,
          private_metadata: privateMetadata,
        };
        const res = await requests.viewSubmission({ userId: OUTSIDER, view: forged, triggerId: "1.2.3" });
        expect(res.text, `forged resubmission ${i} was accepted`).not.toBe("");
      }
      const { rows } = await app.desk.store.query("SELECT status, requested_by FROM orders WHERE id = $1", [
        order.id,
      ]);
      expect(rows[0]).toMatchObject({ status: "failed", requested_by: AGENT });
      expect(
        (await world.sandbox.orders({ limit: 10_000 })).filter((o) => o.customerReference === "REF-1"),
      ).toEqual([]);

      // The same button works for Alice, who may order: the control that the path itself is open.
      const mine = await alice.clickInMessage({
        channel: String(order.channel),
        ts: String(order.ts),
        actionId: ACTION.fixAndResubmit,
      });
      const fix = await alice.openedModal(mine.triggerId);
      const resubmitted = await alice.submit(fix.id);
      expect(resubmitted.outcome.outcome).toBe("closed");
      await until("REF-1 placed after Alice's resubmission", 15_000, async () =>
        (await world.sandbox.orders({ limit: 10_000 })).some((o) => o.customerReference === "REF-1")
          ? true
          : undefined,
      );
      expect(await ordersBy(OUTSIDER)).toBe(0);
    });
  });
  describe("admin buttons", () => {
    /** Listed in the suite's customer file under `admins`. */
    const ADMIN_USER = "U0RELADMIN";
    const BUTTONS = [
      ACTION.retryOrder,
      ACTION.markHandled,
      ACTION.retryPosting,
      ACTION.attachOrphans,
      ACTION.ignoreOrphans,
    ];

    async function openOrphanItem(): Promise<string> {
      const { item } = await openAttention(app.desk.store, {
        id: crypto.randomUUID(),
        kind: "orphan_events",
        subject: crypto.randomUUID(),
        alert: { title: "Supplier updates for an unknown order", text: "hostile-slack" },
      });
      return item.id;
    }

    const resolvedAt = async (id: string) =>
      (await app.desk.store.query("SELECT resolved_at FROM attention_items WHERE id = $1", [id])).rows[0]
        ?.resolved_at ?? null;
    const queuedOrders = async () =>
      Number(
        (await app.desk.store.query("SELECT count(*)::int AS n FROM orders WHERE status = 'queued'")).rows[0]
          ?.n,
      );

    /** A click as Slack would send it: on the alert in the admin channel (with a response URL) or on App Home. */
    function click(
      userId: string,
      actionId: string,
      value: unknown,
      onHome: boolean,
      responseUrl = world.fake.responseUrl(),
    ) {
      const action = { type: "button", action_id: actionId, block_id: "attention_actions:x" } as Json;
      if (value !== undefined) action.value = value;
      return requests.blockActions({
        userId,
        triggerId: world.fake.issueTriggerId(userId),
        ...(onHome
          ? { view: { id: "VHOMEHOSTILE", type: "home", blocks: [], private_metadata: "" } }
          : {
              message: {
                channelId: ADMIN_CHANNEL,
                message: { type: "message", ts: "1.000001", text: "alert" },
              },
              responseUrl,
            }),
        actions: [action as never],
      });
    }

    it("answers fuzzed clicks from admins and others with forged ids, and changes nothing", async () => {
      const itemId = await openOrphanItem();
      const queuedBefore = await queuedOrders();
      const triedBefore = figures.inputsTried;
      await FUZZ_CLICKS.assert(
        fc.asyncProperty(
          fc.constantFrom(AGENT, OUTSIDER, ADMIN_USER),
          fc.constantFrom(...BUTTONS),
          fc.oneof(nasty, fc.constant(itemId), fc.uuid(), fc.constant(undefined), anyValue),
          fc.boolean(),
          async (userId, actionId, value, onHome) => {
            // An admin's click with the real id is a real action: that one is checked below, once.
            if (userId === ADMIN_USER && value === itemId) return;
            const res = await click(userId, actionId, value, onHome);
            figures.inputsTried++;
            if (res.status >= 500) figures.http5xx++;
            expect(res.status).toBe(200);
          },
        ),
      );
      notes.push(FUZZ_CLICKS.note("admin clicks", figures.inputsTried - triedBefore));
      expect(await resolvedAt(itemId)).toBeNull();
      expect(await queuedOrders()).toBe(queuedBefore);
    });

    it("acts once on a replayed click, and answers every replay", async () => {
      const itemId = await openOrphanItem();
      // One response URL per click, read back by its id: answers to the earlier tests' clicks (acked first,
      // answered after) may still arrive while these run, and must not be counted as these.
      const urls = [0, 1, 2].map(() => world.fake.responseUrl());
      for (const url of urls) {
        expect((await click(ADMIN_USER, ACTION.ignoreOrphans, itemId, false, url)).status).toBe(200);
      }
      const answersTo = (url: string) =>
        world.fake
          .responses(url.slice(url.lastIndexOf("/") + 1))
          .map((r) => String((r.body as Json).text ?? ""));
      const texts = await until("three answers", 10_000, async () => {
        const found = urls.flatMap(answersTo);
        return found.length >= 3 ? found : undefined;
      });
      expect(texts.filter((t) => t.startsWith(":white_check_mark: Ignored by"))).toHaveLength(1);
      expect(texts.filter((t) => t.includes("already handled"))).toHaveLength(2);
      expect(await resolvedAt(itemId)).not.toBeNull();
    });
  });

  it("takes no workflow order for a profile that does not allow workflows, whatever the inputs name", async () => {
    const inputs: Json = {
      ticket_id: "WFR-1",
      first_name: "Nina",
      last_name: "Newhire",
      email: "nina.newhire@example.com",
      phone: "+31 6 1234 5678",
      delivery_at: "Home",
      address1: "Keizersgracht 1",
      city: "Amsterdam",
      zip: "1015 CJ",
      country: "NL",
      items: "Desk refresh",
    };
    // "Restricted" has no allowWorkflows; its channel alone, the profile by name, or the profile in another channel.
    for (const extra of [
      { channel: RESTRICTED_CHANNEL },
      { channel: RESTRICTED_CHANNEL, profile: "Restricted" },
      { channel: WORKFLOW_CHANNEL, profile: "Restricted" },
    ]) {
      const run = await runWorkflowStep(world.fake, requests, {
        callbackId: "place_order",
        inputs: { ...inputs, ...extra },
      });
      figures.inputsTried++;
      expect(run.response.status).toBe(200);
      const execution = await world.fake.waitFor(
        () => {
          const e = world.fake.execution(run.functionExecutionId);
          return e && e.status !== "running" ? e : undefined;
        },
        { timeoutMs: 10_000, what: `the step for ${JSON.stringify(extra)} to end` },
      );
      expect(execution.status, JSON.stringify(extra)).toBe("failed");
      expect(execution.error).toMatch(
        /"Restricted" does not allow Workflow Builder orders.*allowWorkflows: true/,
      );
      expect(await ordersWithKey(`function:${run.functionExecutionId}`)).toBe(0);
    }
  });

  it(
    `answers up to ${RUNS} fuzzed modal submissions with a closed modal or inline errors, storing only allowed, valid orders`,
    async () => {
      const crashes = watchForCrashes();
      const triedBefore = figures.inputsTried;
      const failures = new Map<string, { count: number; example: string }>();
      const fail = (what: string) => {
        const key = what.slice(0, 140).replace(/\d{3,}/g, "N");
        const seen = failures.get(key);
        if (seen) seen.count++;
        else failures.set(key, { count: 1, example: what.slice(0, 500) });
      };
      const blockIds = new Set(((base.blocks as Json[]) ?? []).map((b) => String(b.block_id)));
      const accepted = new Set<string>();
      const refused: string[] = [];
      const meta = metaOf(base.private_metadata);
      const seal = createMetadataSeal(world.botToken);
      const { rows: someOrder } = await app.desk.store.query("SELECT id FROM orders LIMIT 1");

      const metadata = fc.oneof(
        { weight: 6, arbitrary: fc.constant(String(base.private_metadata)) },
        { weight: 1, arbitrary: fc.string({ maxLength: 100 }) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
        {
          weight: 2,
          arbitrary: fc
            .record({
              ch: fc.constantFrom(CHANNEL, RESTRICTED_CHANNEL, "C0UNKNOWN", "D0DIRECT", "not a channel"),
              src: fc.constantFrom("command", "shortcut", "home", "cli"),
              pf: fc.constantFrom(undefined, "Reliability", "Restricted", "Nope", "__proto__"),
              o: fc.constantFrom(undefined, someOrder[0]?.id ?? "order-x", "../../etc/passwd"),
              th: fc.constantFrom(undefined, "1700000000.000100", "abc"),
              // Unsealed (a forgery), behind the base view's MAC (an edit), or sealed with the server's key for
              // the agent (as if the server had opened it: reaches the rules) or for the outsider.
              as: fc.constantFrom("unsealed", "edited", AGENT, OUTSIDER),
            })
            .map(({ as, ...m }) => {
              const json = {
                ...meta,
                ...Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)),
              };
              if (as === "unsealed") return JSON.stringify(json);
              if (as === "edited") return keepMac(base.private_metadata, json);
              return seal.seal(JSON.stringify(json), as);
            }),
        },
        {
          weight: 1,
          arbitrary: fc.constant(`{"__proto__":{"polluted":"yes"},"v":1,"src":"command","lk":["0"],"nk":1}`),
        },
        { weight: 1, arbitrary: fc.constant("x".repeat(5_000)) },
      );
      const inputs = ((base.blocks as Json[]) ?? []).flatMap((b) => {
        const actionId = (b.element as Json | undefined)?.action_id;
        return typeof actionId === "string" ? [[String(b.block_id), actionId] as const] : [];
      });
      const target = fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...inputs) },
        {
          weight: 1,
          arbitrary: fc.tuple(
            fc.constantFrom(...blockIds, "__proto__", "constructor", "unknown_block"),
            fc.constantFrom("value", ACTION.country, ACTION.lineItem, ACTION.lineQuantity, "__proto__", "x"),
          ),
        },
      );
      const stateEdit = fc
        .record({
          target,
          value: anyValue,
          protoKey: fc.option(fc.constantFrom("__proto__", "constructor"), { nil: undefined, freq: 8 }),
        })
        .map(({ target: [block, action], ...rest }) => ({ block, action, ...rest }));
      const submission = fc.record({
        user: fc.constantFrom(AGENT, AGENT, AGENT, OUTSIDER),
        metadata,
        edits: fc.array(stateEdit, { minLength: 1, maxLength: 4 }),
        dropState: fc.boolean().map((b) => b && Math.random() < 0.05),
      });

      let n = 0;
      try {
        await FUZZ_MODAL.assert(
          fc.asyncProperty(submission, async (s) => {
            const id = `VFZ${(++n).toString(36).toUpperCase()}${Date.now().toString(36).toUpperCase()}`;
            const view = clone(base);
            view.id = id;
            view.root_view_id = id;
            view.private_metadata = s.metadata;
            const values = (view.state as { values: Record<string, Record<string, unknown>> }).values;
            for (const e of s.edits) {
              setOwn(ownObject(values, e.block), e.action, e.protoKey ? protoKeyed(e.protoKey) : e.value);
            }
            if (s.dropState) view.state = {};
            let text = JSON.stringify(view);
            // __proto__ as a key of state.values itself, which JSON.stringify of a normal object cannot write.
            if (s.edits.some((e) => e.protoKey))
              text = text.replace('"values":{', '"values":{"__proto__":{"polluted":{"value":"yes"}},');
            const res = await requests
              .viewSubmission({ userId: s.user, view: JSON.parse(text) as Json, triggerId: "1.2.3" })
              .catch((error: Error) => ({ status: 0, text: `no answer: ${error.message}`, body: undefined }));
            figures.inputsTried++;
            if (res.status === 0 || res.status >= 500) {
              figures.http5xx += res.status >= 500 ? 1 : 0;
              fail(`HTTP ${res.status}: ${res.text}`);
              return;
            }
            const input = `${s.user} metadata=${s.metadata.slice(0, 120)} edits=${JSON.stringify(s.edits).slice(0, 300)} dropState=${s.dropState}`;
            if (res.status !== 200) {
              fail(`HTTP ${res.status} (Slack shows "trouble connecting") for ${input}`);
              return;
            }
            const answer = res.body as
              | { response_action?: string; errors?: Record<string, string> }
              | undefined;
            if (res.text === "" || (answer && answer.response_action === undefined)) {
              accepted.add(id);
              if (s.user !== AGENT) fail(`an order was accepted from ${s.user}, who may not order: ${input}`);
            } else if (answer?.response_action === "errors") {
              refused.push(id);
              const errors = Object.entries(answer.errors ?? {});
              if (errors.length === 0) fail("errors without any error");
              for (const [block, message] of errors) {
                if (!blockIds.has(block)) fail(`an error on block "${block}", which the modal does not have`);
                if (typeof message !== "string" || message.trim() === "" || message.length > 2000)
                  fail(`an unreadable error on ${block}: ${JSON.stringify(message).slice(0, 100)}`);
              }
            } else if (answer?.response_action === "update") {
              refused.push(id);
            } else {
              fail(`unexpected answer: ${res.text.slice(0, 300)}`);
            }
            if (({} as Record<string, unknown>).polluted !== undefined) fail("Object.prototype polluted");
          }),
        );
      } finally {
        crashes.stop();
        figures.crashes += crashes.count;
        notes.push(
          FUZZ_MODAL.note("modal", figures.inputsTried - triedBefore),
          `modal: ${accepted.size} accepted, ${refused.length} refused`,
          ...crashes.errors.slice(0, 5),
          ...[...failures].map(([key, { count }]) => `modal: ${count}× ${key}`),
        );
      }
      // Nothing stored from a refused submission; every accepted one stored once.
      const { rows } = await app.desk.store.query(
        "SELECT idempotency_key AS key, requested_by FROM orders WHERE idempotency_key LIKE 'view:VFZ%'",
      );
      const stored = new Set(rows.map((r) => String(r.key).slice(5)));
      for (const id of refused) if (stored.has(id)) fail(`refused submission ${id} left an order`);
      for (const id of accepted) if (!stored.has(id)) fail(`accepted submission ${id} has no order`);
      for (const r of rows)
        if (r.requested_by !== AGENT) fail(`an order requested by ${r.requested_by} was stored`);
      expect(crashes.errors).toEqual([]);
      expect([...failures.values()].map((f) => f.example)).toEqual([]);
      expect(Object.prototype).not.toHaveProperty("polluted");
    },
    FUZZ_MODAL.timeoutMs,
  );

  it(
    "refuses fuzzed typed order numbers with markup, links, mentions, control characters or over the length inline, storing and injecting nothing",
    async () => {
      const crashes = watchForCrashes();
      const triedBefore = figures.inputsTried;
      const problems: string[] = [];
      const block = FIELD_BLOCK.externalDocumentNumber;
      const field = ((base.blocks as Json[]) ?? []).find((b) => b.block_id === block);
      const actionId = String((field?.element as Json | undefined)?.action_id);
      expect(field, "the modal has the order number field (allowManual)").toBeDefined();
      const key = (i: { where: string; field: string; found: string }) => `${i.where} ${i.field} ${i.found}`;
      // The supplier's tracking links (the sandbox's host) reach other orders' messages while this runs: allowed.
      const allowed = { allowUsers: [AGENT], allowLinkHosts: [new URL(world.sandbox.url).hostname] };
      const injectedBefore = new Set(world.fake.injections(allowed).map(key));

      const safe = /^[A-Za-z0-9._/-]{1,35}$/;
      const hostile = fc.oneof(
        fc.constantFrom(
          "<https://phish.example/q|PO-1234>",
          "<http://phish.example>",
          "https://phish.example/q",
          "<!channel>",
          "<!here>",
          "<!everyone>",
          `<@${OUTSIDER}>`,
          `<#${ADMIN_CHANNEL}>`,
          "<!subteam^S0BUYERS>",
          "*PO*",
          "_PO_",
          "~PO~",
          "`PO`",
          "> PO",
          "PO&amp;1",
          "PO&lt;1",
          "PO-\u202e1",
          "PO\u00001",
          "PO\n1",
          "PO\t1",
          "PO\u0007",
          "PO\u200b1",
          "P".repeat(36),
          "PO-".repeat(5_000),
        ),
        // A safe-looking number with markup or a control character spliced in.
        fc
          .tuple(
            fc.stringMatching(/^[A-Z0-9-]{0,10}$/),
            fc.constantFrom(
              "<",
              ">",
              "|",
              "*",
              "~",
              "`",
              "&",
              "!",
              "@",
              "#",
              ":",
              " ",
              "\u0000",
              "\r",
              "\u001b",
            ),
            fc.stringMatching(/^[A-Z0-9-]{0,10}$/),
          )
          .map(([a, bad, b]) => `${a}${bad}${b}`),
        fc.string({ unit: fc.constantFrom(..."AZaz09-_./"), minLength: 36, maxLength: 300 }),
        fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
      );

      let n = 0;
      const refusedIds: string[] = [];
      try {
        await FUZZ_EDN.assert(
          fc.asyncProperty(hostile, async (typed) => {
            // Trimmed by the form; a blank number means "make one" and a safe one is allowed.
            fc.pre(typed.trim() !== "" && !safe.test(typed.trim()));
            const id = `VEDN${(++n).toString(36).toUpperCase()}${Date.now().toString(36).toUpperCase()}`;
            const view = clone(base);
            view.id = id;
            view.root_view_id = id;
            const values = (view.state as { values: Record<string, Record<string, unknown>> }).values;
            values[block] = { [actionId]: { type: "plain_text_input", value: typed } };
            const res = await requests
              .viewSubmission({ userId: AGENT, view, triggerId: "1.2.3" })
              .catch((error: Error) => ({ status: 0, text: `no answer: ${error.message}`, body: undefined }));
            figures.inputsTried++;
            if (res.status >= 500) figures.http5xx++;
            const answer = res.body as
              | { response_action?: string; errors?: Record<string, string> }
              | undefined;
            const shown = JSON.stringify(typed).slice(0, 80);
            if (res.status !== 200 || answer?.response_action !== "errors") {
              problems.push(`${shown}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
              return;
            }
            refusedIds.push(id);
            const message = answer.errors?.[block] ?? "";
            if (
              !message.includes("Use only letters A–Z, digits and - _ . / (no spaces), at most 35 characters")
            )
              problems.push(
                `${shown}: refused without the safe-character-set message: ${JSON.stringify(answer.errors)}`,
              );
          }),
        );
      } finally {
        crashes.stop();
        figures.crashes += crashes.count;
        notes.push(FUZZ_EDN.note("typed order numbers", figures.inputsTried - triedBefore));
      }
      const { rows } = await app.desk.store.query(
        "SELECT count(*)::int AS n FROM orders WHERE idempotency_key LIKE 'view:VEDN%'",
      );
      expect(rows[0]?.n, "orders stored from refused numbers").toBe(0);
      const injected = world.fake.injections(allowed).filter((i) => !injectedBefore.has(key(i)));
      expect(injected).toEqual([]);
      expect(crashes.errors).toEqual([]);
      expect(problems.slice(0, 5)).toEqual([]);
      expect(refusedIds.length).toBeGreaterThan(0);
    },
    FUZZ_EDN.timeoutMs,
  );

  it(
    "shows fuzzed cross-channel /order status lookups only the orders of channels the asker is in (or requested, or as an admin), and counts the rest",
    async () => {
      const crashes = watchForCrashes();
      const triedBefore = figures.inputsTried;
      const problems: string[] = [];
      for (const [id, name] of [
        [COLLEAGUE, "carl"],
        [STATUS_ADMIN, "reladmin"],
      ] as const) {
        if (!world.fake.workspace.users.has(id)) world.fake.addUser({ id, name, realName: name });
      }
      // Two private and two public channels of the profile, an order of AGENT's in each.
      const edns = new Map<string, string>();
      for (const [i, channel] of VIS_CHANNELS.entries()) {
        const c = world.fake.workspace.channels.get(channel);
        if (c) c.isPrivate = i < 2;
        const { triggerId } = await alice.runCommand({ channel, command: "/order", text: VIS_TICKET });
        const view = await alice.openedModal(triggerId);
        expect((await alice.submit(view.id, orderForm(VIS_TICKET))).outcome.outcome).toBe("closed");
        const order = await until(`${VIS_TICKET} in ${channel}`, 15_000, async () => {
          const { rows } = await app.desk.store.query(
            "SELECT external_document_number AS edn FROM orders WHERE customer_reference = $1 AND slack_channel_id = $2",
            [VIS_TICKET, channel],
          );
          return rows[0] ? String(rows[0].edn) : undefined;
        });
        edns.set(channel, order);
      }

      const lookup = fc.record({
        asker: fc.constantFrom(COLLEAGUE, COLLEAGUE, COLLEAGUE, AGENT, STATUS_ADMIN, OUTSIDER),
        askedIn: fc.constantFrom(
          ...VIS_CHANNELS,
          OTHER_CHANNEL,
          ADMIN_CHANNEL,
          RESTRICTED_CHANNEL,
          "D0COLLEAG",
        ),
        memberOf: fc.array(fc.boolean(), { minLength: VIS_CHANNELS.length, maxLength: VIS_CHANNELS.length }),
        text: fc.constantFrom(
          `status ${VIS_TICKET}`,
          `status ${VIS_TICKET.toLowerCase()}`,
          `  status   ${VIS_TICKET} `,
        ),
      });
      const profileChannels = new Set([...VIS_CHANNELS, OTHER_CHANNEL]);
      let asked = 0;
      const tally = { showed: 0, leftOut: 0, refused: 0 };
      try {
        await FUZZ_STATUS.assert(
          fc.asyncProperty(lookup, async ({ asker, askedIn, memberOf, text }) => {
            for (const [i, channel] of VIS_CHANNELS.entries()) {
              const members = world.fake.workspace.channels.get(channel)?.members;
              if (memberOf[i]) members?.add(asker);
              else members?.delete(asker);
            }
            const before = world.fake.responses().length;
            const user = new SlackUser({ fake: world.fake, requests, userId: asker, timeoutMs: 5_000 });
            const { response } = await user.runCommand({ channel: askedIn, command: "/order", text });
            figures.inputsTried++;
            asked++;
            // Outside a profile's channels the ack itself answers; inside, the answer comes on the response URL.
            const ack = response as { status: number; text: string };
            if (ack.status >= 500) figures.http5xx++;
            const answered =
              ack.text.trim() !== ""
                ? ack.text
                : JSON.stringify(
                    (
                      await world.fake.waitFor(() => world.fake.responses()[before], {
                        what: "the status answer",
                        timeoutMs: 10_000,
                      })
                    ).body,
                  );
            const body = answered;
            const seen = VIS_CHANNELS.filter((c) => body.includes(edns.get(c) as string));
            const mayLook = asker !== OUTSIDER && profileChannels.has(askedIn);
            const visible = VIS_CHANNELS.filter(
              (c, i) => asker === AGENT || asker === STATUS_ADMIN || c === askedIn || memberOf[i],
            );
            const expected = mayLook ? visible : [];
            const leftOut = mayLook ? VIS_CHANNELS.length - visible.length : 0;
            const what = `${asker} in ${askedIn}, member of ${memberOf}`;
            if (seen.join() !== expected.join()) problems.push(`${what}: saw ${seen}, expected ${expected}`);
            const counted = /(\d+) more orders? (?:was|were) left out/.exec(body)?.[1];
            if (seen.length > 0) tally.showed++;
            if (counted !== undefined) tally.leftOut++;
            if (!mayLook) tally.refused++;
            if (Number(counted ?? 0) !== leftOut)
              problems.push(`${what}: said ${counted ?? "nothing"} left out, expected ${leftOut}`);
          }),
        );
      } finally {
        crashes.stop();
        figures.crashes += crashes.count;
        notes.push(
          FUZZ_STATUS.note("cross-channel /order status", asked),
          `status: ${tally.showed} answers showed orders, ${tally.leftOut} said some were left out, ${tally.refused} from outside the profile or by the outsider`,
        );
        for (const channel of VIS_CHANNELS) {
          const c = world.fake.workspace.channels.get(channel);
          for (const id of [COLLEAGUE, AGENT, STATUS_ADMIN, OUTSIDER]) c?.members.add(id);
        }
      }
      expect(crashes.errors).toEqual([]);
      expect(problems.slice(0, 5)).toEqual([]);
      expect(figures.inputsTried - triedBefore).toBe(asked);
      expect(tally.showed).toBeGreaterThan(0);
    },
    FUZZ_STATUS.timeoutMs,
  );

  it(
    `answers fuzzed /order export commands with a clear ephemeral answer, uploading only an admin's valid month`,
    async () => {
      const crashes = watchForCrashes();
      const triedBefore = figures.inputsTried;
      const failures = new Map<string, { count: number; example: string }>();
      const fail = (what: string) => {
        const key = what.slice(0, 140).replace(/\d{3,}/g, "N");
        const seen = failures.get(key);
        if (seen) seen.count++;
        else failures.set(key, { count: 1, example: what.slice(0, 500) });
      };
      const month = fc.oneof(
        { weight: 1, arbitrary: fc.constantFrom("", "2026-11", "2031-02", " 2026-10 ") },
        {
          weight: 4,
          arbitrary: fc.oneof(
            nasty,
            fc.constantFrom(
              "<!channel>",
              "<!here> 2026-11",
              "<@U0OUTSIDE>",
              "<!subteam^S0BUYERS>",
              "<https://evil.example|click here>",
              "*2026*-_11_",
              "`2026-11`",
              "2026-13",
              "2026-00",
              "0000-01",
              "9999-12",
              "2026-11; DROP TABLE orders",
              "2026-11' OR '1'='1",
              "=cmd|' /C calc'!A0",
              "@SUM(1+1)",
              "../../etc/passwd",
              "2026-11\n<!channel>",
            ),
            fc.string({ maxLength: 60 }),
          ),
        },
      );
      /** Listed in the suite's customer file under `admins`; a person in the workspace, so it has a DM. */
      const EXPORT_ADMIN = "U0RELADMIN";
      if (!world.fake.workspace.users.has(EXPORT_ADMIN)) {
        world.fake.addUser({ id: EXPORT_ADMIN, name: "reladmin", realName: "Rel Admin" });
      }
      const command = fc.record({
        user: fc.constantFrom(EXPORT_ADMIN, EXPORT_ADMIN, AGENT, OUTSIDER),
        month,
      });
      const filesBefore = world.fake.files().length;
      const exportResponses = new Set<string>();
      let uploads = 0;
      try {
        await FUZZ_EXPORT.assert(
          fc.asyncProperty(command, async ({ user, month: typed }) => {
            // Read back by this command's own response URL: other tests' late answers are not this one's.
            const responseUrl = world.fake.responseUrl();
            const responseId = responseUrl.slice(responseUrl.lastIndexOf("/") + 1);
            exportResponses.add(responseId);
            const res = await requests
              .slashCommand({
                userId: user,
                command: "/order",
                text: `export ${typed}`,
                channelId: CHANNEL,
                channelName: CHANNEL.toLowerCase(),
                triggerId: world.fake.issueTriggerId(user),
                responseUrl,
              })
              .catch((error: Error) => ({ status: 0, text: `no answer: ${error.message}` }));
            figures.inputsTried++;
            const input = `${user} "export ${typed.slice(0, 100)}"`;
            if (res.status !== 200) {
              if (res.status >= 500) figures.http5xx++;
              fail(`HTTP ${res.status} for ${input}: ${res.text.slice(0, 200)}`);
              return;
            }
            const answers = await world.fake
              .waitFor(
                () => {
                  const answered = world.fake.responses(responseId);
                  return answered.length > 0 ? answered : undefined;
                },
                {
                  timeoutMs: 10_000,
                  what: `the answer to ${input}`,
                },
              )
              .catch(() => undefined);
            const text = String((answers?.[0]?.body as { text?: unknown } | undefined)?.text ?? "");
            const valid = /^\s*(\d{4}-(0[1-9]|1[0-2]))?\s*$/.test(typed) && !/^\s*[013-9]\d{3}-/.test(typed);
            if (user !== EXPORT_ADMIN) {
              if (!text.includes("Only Order Desk admins"))
                fail(`a non-admin was not refused: ${input} → ${text}`);
            } else if (valid) {
              if (!text.startsWith("Exporting the orders of"))
                fail(`a valid month was not exported: ${input} → ${text}`);
              else uploads++;
            } else if (!text.includes("That is not a month")) {
              fail(`an invalid month got no clear answer: ${input} → ${text.slice(0, 200)}`);
            }
          }),
        );
        // Each accepted export ends as one file in the admin's DM, none anywhere else.
        // Each export reads the whole month (thousands of orders after the fuzzed submissions above) on a store
        // that is still placing them: wait while files are begun or completed, not for a fixed time.
        // An export Slack would not take (its DM note rate-limited: every export here goes to one admin's DM within
        // seconds) must say so to the admin; it may not vanish.
        const toldFailed = () =>
          world.fake
            .responses()
            .filter((r) => exportResponses.has(r.id))
            .filter((r) =>
              String((r.body as { text?: unknown }).text ?? "").startsWith("Order Desk could not export"),
            ).length;
        const settled = await waitWhileMoving(
          () => {
            const files = world.fake.files().slice(filesBefore);
            return {
              begun: files.length,
              completed: files.filter((f) => f.completed).length,
              failed: toldFailed(),
            };
          },
          ({ completed, failed }) => completed + failed >= uploads,
          { stallMs: 90_000, what: `${uploads} uploads` },
        );
        uploads -= settled.failed;
        notes.push(`export: ${settled.failed} told "could not export" (Slack's pace in one DM)`);
        // A file whose note Slack refused is never completed: Slack drops it, nobody sees it.
        const shared = world.fake
          .files()
          .slice(filesBefore)
          .filter((f) => f.completed);
        for (const file of shared) {
          if (!/^orders-\d{4}-\d{2}\.csv$/.test(file.filename)) fail(`a file named ${file.filename}`);
          for (const share of file.shares)
            if (share.channel !== "D0RELADMIN") fail(`a file shared in ${share.channel}`);
        }
        if (shared.length !== uploads) fail(`${shared.length} files for ${uploads} accepted exports`);
        // What the exports sent: their answers and the admin's DM. (The order messages of the fuzzed submissions
        // above mention their requester, as every order message does; a refusal names the admin, who may export.)
        const injected = world.fake
          .injections({ allowUsers: [EXPORT_ADMIN] })
          .filter(
            (i) =>
              i.where.startsWith("message D0RELADMIN ") ||
              exportResponses.has(i.where.replace(/^response /, "")),
          );
        if (injected.length > 0) fail(`mentions or links acted on: ${JSON.stringify(injected.slice(0, 3))}`);
      } finally {
        crashes.stop();
        figures.crashes += crashes.count;
        notes.push(
          FUZZ_EXPORT.note("export", figures.inputsTried - triedBefore),
          `export: ${uploads} files`,
          ...[...failures].map(([key, { count }]) => `export: ${count}× ${key}`),
        );
      }
      expect(crashes.errors).toEqual([]);
      expect([...failures.values()].map((f) => f.example)).toEqual([]);
    },
    FUZZ_EXPORT.timeoutMs,
  );

  it(
    `fails up to ${RUNS} fuzzed workflow steps with a readable error or takes them as orders, storing nothing else`,
    async () => {
      const crashes = watchForCrashes();
      const triedBefore = figures.inputsTried;
      const failures = new Map<string, { count: number; example: string }>();
      const fail = (what: string) => {
        const key = what.slice(0, 140).replace(/\d{3,}/g, "N");
        const seen = failures.get(key);
        if (seen) seen.count++;
        else failures.set(key, { count: 1, example: what.slice(0, 500) });
      };
      const valid: Json = {
        ticket_id: "ONB-7",
        first_name: "Nina",
        last_name: "Newhire",
        email: "nina.newhire@example.com",
        phone: "+31 6 1234 5678",
        delivery_at: "Home",
        address1: "Keizersgracht 1",
        city: "Amsterdam",
        zip: "1015 CJ",
        country: "NL",
        items: "Desk refresh",
        channel: WORKFLOW_CHANNEL,
      };
      const inputs = fc.oneof(
        { weight: 1, arbitrary: fc.constant(valid) },
        {
          weight: 60,
          arbitrary: fc
            .record({
              edits: fc.array(
                fc.tuple(
                  fc.constantFrom(
                    ...Object.keys(valid),
                    "profile",
                    "external_document_number",
                    "recipient",
                    "__proto__",
                  ),
                  anyValue,
                ),
                {
                  minLength: 1,
                  maxLength: 4,
                },
              ),
              drop: fc.subarray(Object.keys(valid), { maxLength: 3 }),
            })
            .map(({ edits, drop }) => {
              const out: Json = { ...valid };
              for (const key of drop) delete out[key];
              for (const [key, value] of edits) {
                setOwn(out, key, key === "__proto__" ? { polluted: "yes" } : value);
              }
              return out;
            }),
        },
        { weight: 5, arbitrary: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }) },
      );
      const executions: string[] = [];
      try {
        await FUZZ_WORKFLOW.assert(
          // Batches of BATCH steps sent at once, as a busy workspace does: Bolt answers each at once and works after.
          fc.asyncProperty(fc.array(inputs, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
            await Promise.all(
              batch.map(async (stepInputs) => {
                const run = await runWorkflowStep(world.fake, requests, {
                  callbackId: "place_order",
                  inputs: stepInputs,
                }).catch((error: Error) => ({
                  response: { status: 0, text: `no answer: ${error.message}` },
                  functionExecutionId: "",
                }));
                figures.inputsTried++;
                if (run.response.status !== 200) {
                  if (run.response.status >= 500) figures.http5xx++;
                  fail(`HTTP ${run.response.status}: ${run.response.text}`);
                } else executions.push(run.functionExecutionId);
              }),
            );
            if (({} as Record<string, unknown>).polluted !== undefined) fail("Object.prototype polluted");
          }),
        );
        // Every step ends: failed with a message, or its order was stored (the placement job completes it).
        const ordersByStep = async () => {
          const { rows } = await app.desk.store.query(
            "SELECT idempotency_key AS key, count(*)::int AS n FROM orders WHERE idempotency_key LIKE 'function:%' GROUP BY 1",
          );
          return new Map(rows.map((r) => [String(r.key).slice("function:".length), Number(r.n)]));
        };
        const deadline = Date.now() + 60_000;
        let open: string[] = executions;
        while (open.length > 0 && Date.now() < deadline) {
          const orders = await ordersByStep();
          open = open.filter((id) => {
            const e = world.fake.execution(id);
            return !(e?.status === "failed" || e?.status === "completed" || orders.has(id));
          });
          if (open.length > 0) await sleep(500);
        }
        if (open.length > 0)
          fail(`${open.length} workflow steps neither failed nor stored (e.g. ${open[0]})`);
        let failed = 0;
        let stored = 0;
        const orders = await ordersByStep();
        for (const id of executions) {
          const e = world.fake.execution(id);
          const count = orders.get(id) ?? 0;
          if (e?.status === "failed") {
            failed++;
            if (count > 0) fail("a failed step left an order");
            const message = String(e.error ?? "");
            if (message.trim() === "" || /\bat .*\.ts:\d+|\[object Object\]|undefined/.test(message))
              fail(`an unreadable step error: ${message.slice(0, 200)}`);
          } else if (count > 0) stored++;
          if (count > 1) fail(`one step, ${count} orders`);
        }
        notes.push(`workflow: ${stored} steps became orders, ${failed} failed with a message`);
      } finally {
        crashes.stop();
        figures.crashes += crashes.count;
        notes.push(
          FUZZ_WORKFLOW.note("workflow batches", Math.floor((figures.inputsTried - triedBefore) / BATCH)),
          ...crashes.errors.slice(0, 5),
          ...[...failures].map(([key, { count }]) => `workflow: ${count}× ${key}`),
        );
      }
      expect(crashes.errors).toEqual([]);
      expect([...failures.values()].map((f) => f.example)).toEqual([]);
      expect(Object.prototype).not.toHaveProperty("polluted");
    },
    FUZZ_WORKFLOW.timeoutMs,
  );
});
