/**
 * The fake Slack's Socket Mode, spoken to by a bare WebSocket client (undici's, the one @slack/socket-mode
 * uses): the token rules of `apps.connections.open`, `hello`, envelopes and their acks, Slack's retries of
 * events not acked in time, `disconnect`, connections dropped without a word, and commands that find no
 * connection.
 */
import { webApi } from "@slack/bolt";
import { WebSocket } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { fakeSlackToken } from "../../tools/fake-tokens.ts";
import { quietSlackLogger } from "../helpers/quiet-slack-logger.ts";

const BOT_TOKEN = fakeSlackToken("xoxb", "fake-socket");
const APP_TOKEN = fakeSlackToken("xapp", "0123456789abcdef");

let fake: FakeSlack;

beforeEach(async () => {
  fake = await startFakeSlack({
    botToken: BOT_TOKEN,
    socketMode: { appToken: APP_TOKEN, ackTimeoutMs: 200, retryDelaysMs: [0, 0], closeAfterDisconnectMs: 50 },
  });
});
afterEach(async () => {
  await fake.close();
});

function client(token: string | undefined) {
  return new webApi.WebClient(token, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logger: quietSlackLogger,
  });
}

async function openError(token: string | undefined): Promise<string> {
  try {
    await client(token).apps.connections.open();
  } catch (error) {
    return String((error as webApi.WebAPIPlatformError).data.error);
  }
  throw new Error("expected apps.connections.open to fail");
}

interface Peer {
  ws: WebSocket;
  messages: Record<string, unknown>[];
  closed: Promise<{ code: number; wasClean: boolean }>;
  next(predicate: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  ack(envelopeId: unknown, payload?: Record<string, unknown>): void;
}

/** Opens a connection as an app would and collects what Slack sends. */
async function connect(): Promise<Peer> {
  const { url } = await client(APP_TOKEN).apps.connections.open();
  const ws = new WebSocket(url as string);
  const messages: Record<string, unknown>[] = [];
  const waiters: Array<() => void> = [];
  ws.addEventListener("message", (event) => {
    messages.push(JSON.parse(String(event.data)) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<{ code: number; wasClean: boolean }>((resolve) =>
    ws.addEventListener("close", (event) => resolve({ code: event.code, wasClean: event.wasClean })),
  );
  const next = async (predicate: (m: Record<string, unknown>) => boolean) => {
    for (;;) {
      const found = messages.find(predicate);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const peer: Peer = {
    ws,
    messages,
    closed,
    next,
    ack: (envelopeId, payload) =>
      ws.send(JSON.stringify({ envelope_id: envelopeId, ...(payload ? { payload } : {}) })),
  };
  await next((m) => m.type === "hello");
  return peer;
}

describe("apps.connections.open", () => {
  it("opens a connection only with the app-level token", async () => {
    expect(await openError(BOT_TOKEN)).toBe("not_allowed_token_type");
    expect(await openError(undefined)).toBe("not_authed");
    expect(await openError(["xapp", "1", "A0OTHER", "1", "ffff"].join("-"))).toBe("invalid_auth");
    expect(await openError("not-a-token")).toBe("invalid_auth");
    const { url } = await client(APP_TOKEN).apps.connections.open();
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=[0-9a-f-]+&app_id=A0ORDERDSK$/);
    // The app-level token is good for nothing else.
    await expect(client(APP_TOKEN).auth.test()).rejects.toMatchObject({
      data: { error: "not_allowed_token_type" },
    });
  });

  it("hands out single-use URLs", async () => {
    const { url } = await client(APP_TOKEN).apps.connections.open();
    const first = new WebSocket(url as string);
    await new Promise((resolve) => first.addEventListener("open", resolve));
    const second = new WebSocket(url as string);
    const refused = await new Promise<string>((resolve) => {
      second.addEventListener("error", () => resolve("error"));
      second.addEventListener("open", () => resolve("open"));
    });
    expect(refused).toBe("error");
    first.close();
  });
});

describe("a connection", () => {
  it("starts with hello, then carries envelopes whose acks are recorded with their payload", async () => {
    const peer = await connect();
    expect(peer.messages[0]).toMatchObject({
      type: "hello",
      num_connections: 1,
      connection_info: { app_id: "A0ORDERDSK" },
    });
    const delivered = fake.socketMode.deliver("slash_commands", { command: "/order", text: "ABC-1" });
    const envelope = await peer.next((m) => m.type === "slash_commands");
    expect(envelope).toMatchObject({
      type: "slash_commands",
      accepts_response_payload: true,
      payload: { command: "/order", text: "ABC-1" },
    });
    expect(envelope.envelope_id).toEqual(expect.any(String));
    peer.ack(envelope.envelope_id, { text: "on it" });
    expect(await delivered).toMatchObject({ envelopeId: envelope.envelope_id, payload: { text: "on it" } });
    expect(fake.socketMode.acks()).toEqual([
      expect.objectContaining({
        envelopeId: envelope.envelope_id,
        connectionId: "c1",
        late: false,
        known: true,
      }),
    ]);
    const [record] = fake.socketMode.envelopes();
    expect(record).toMatchObject({ type: "slash_commands", connectionId: "c1", acks: 1, retryAttempt: 0 });
    peer.ws.close();
    expect(await peer.closed).toMatchObject({ wasClean: true });
    await fake.waitFor(() => fake.socketMode.connections()[0]?.closedBy === "app");
  });

  it("marks which interactions accept a response payload, and answers pings", async () => {
    const peer = await connect();
    void fake.socketMode.deliver("interactive", { type: "block_actions" }).catch(() => {});
    void fake.socketMode.deliver("interactive", { type: "view_submission" }).catch(() => {});
    await peer.next((m) => (m.payload as { type?: string } | undefined)?.type === "view_submission");
    const interactive = peer.messages.filter((m) => m.type === "interactive");
    expect(
      interactive.map((m) => [(m.payload as { type: string }).type, m.accepts_response_payload]),
    ).toEqual([
      ["block_actions", false],
      ["view_submission", true],
    ]);
    for (const m of interactive) peer.ack(m.envelope_id);
    await fake.waitFor(() => fake.socketMode.acks().length === 2);
    peer.ws.close();
  });

  it("sends an event again, with retry_attempt and retry_reason, when its ack did not come in time", async () => {
    const peer = await connect();
    const delivered = fake.socketMode.deliver("events_api", { type: "event_callback", event_id: "Ev1" });
    const first = await peer.next((m) => m.type === "events_api");
    expect(first).toMatchObject({ retry_attempt: 0, retry_reason: "" });
    // No ack: Slack tries again once the deadline passed.
    const second = await peer.next((m) => m.type === "events_api" && m.retry_attempt === 1);
    expect(second).toMatchObject({ retry_reason: "timeout", payload: { event_id: "Ev1" } });
    expect(second.envelope_id).not.toBe(first.envelope_id);
    peer.ack(first.envelope_id);
    peer.ack(second.envelope_id);
    const delivery = await delivered;
    expect(delivery).toMatchObject({ envelopeId: second.envelope_id, attempts: 2 });
    await fake.waitFor(() => fake.socketMode.acks().length === 2);
    expect(fake.socketMode.acks().map((a) => a.late)).toEqual([true, false]);
    peer.ws.close();
  });

  it("treats an ack made to count as late like a missing one", async () => {
    const peer = await connect();
    fake.socketMode.lateAckNext(1);
    const delivered = fake.socketMode.deliver("events_api", { type: "event_callback", event_id: "Ev2" });
    const first = await peer.next((m) => m.type === "events_api");
    peer.ack(first.envelope_id);
    const second = await peer.next((m) => m.type === "events_api" && m.retry_attempt === 1);
    peer.ack(second.envelope_id);
    expect((await delivered).attempts).toBe(2);
    expect(fake.socketMode.envelopes({ type: "events_api" }).map((e) => e.acks)).toEqual([1, 1]);
    peer.ws.close();
  });

  it("fails a command nobody acks, and one no connection can take, as Slack tells the user", async () => {
    await expect(fake.socketMode.deliver("slash_commands", { command: "/order" })).rejects.toMatchObject({
      reason: "dispatch_failed",
    });
    const peer = await connect();
    await expect(fake.socketMode.deliver("slash_commands", { command: "/order" })).rejects.toMatchObject({
      reason: "operation_timeout",
    });
    expect(fake.socketMode.undelivered()).toHaveLength(1);
    peer.ws.close();
  });

  it("keeps an event until a connection opens", async () => {
    const delivered = fake.socketMode.deliver("events_api", { type: "event_callback", event_id: "Ev3" });
    const peer = await connect();
    const envelope = await peer.next((m) => m.type === "events_api");
    peer.ack(envelope.envelope_id);
    expect((await delivered).attempts).toBe(1);
    peer.ws.close();
  });

  it("says disconnect with the reason, and closes the connection itself when the app does not", async () => {
    const peer = await connect();
    expect(fake.socketMode.disconnect("refresh_requested")).toEqual(["c1"]);
    expect(await peer.next((m) => m.type === "disconnect")).toMatchObject({ reason: "refresh_requested" });
    expect(await peer.closed).toMatchObject({ code: 1000, wasClean: true });
    await fake.waitFor(() => fake.socketMode.connections()[0]?.closedBy === "slack");
    expect(fake.socketMode.connections()[0]?.disconnect?.reason).toBe("refresh_requested");
    expect(fake.socketMode.timeline().map((t) => t.open)).toEqual([1, 0]);
  });

  it("drops a connection without a close frame", async () => {
    const peer = await connect();
    const pending = fake.socketMode.deliver("interactive", { type: "view_submission" });
    await peer.next((m) => m.type === "interactive");
    fake.socketMode.drop();
    expect(await peer.closed).toMatchObject({ code: 1006, wasClean: false });
    await expect(pending).rejects.toMatchObject({ reason: "connection_closed" });
    await fake.waitFor(() => fake.socketMode.connections()[0]?.closedBy === "dropped");
  });

  it("spreads envelopes over open connections, sparing one told to disconnect", async () => {
    const a = await connect();
    const b = await connect();
    for (let i = 0; i < 4; i++) void fake.socketMode.deliver("events_api", { event_id: `EvS${i}` });
    await fake.waitFor(() => fake.socketMode.envelopes().length === 4);
    expect(new Set(fake.socketMode.envelopes().map((e) => e.connectionId))).toEqual(new Set(["c1", "c2"]));
    fake.socketMode.disconnect("warning", "c1");
    for (let i = 4; i < 8; i++) void fake.socketMode.deliver("events_api", { event_id: `EvS${i}` });
    await fake.waitFor(() => fake.socketMode.envelopes().length === 8);
    expect(
      fake.socketMode
        .envelopes()
        .slice(4)
        .map((e) => e.connectionId),
    ).toEqual(["c2", "c2", "c2", "c2"]);
    a.ws.close();
    b.ws.close();
  });
});
