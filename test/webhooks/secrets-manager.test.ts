/**
 * WEBHOOK_SECRET_ID: the webhook signing secrets read from Secrets Manager (the real SDK against the local fake)
 * and used by the real receiver over HTTP, through a rotation that retires the old secret.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretsManagerClient } from "../../src/secrets/client.ts";
import { createWebhookSecretSource, type WebhookSecretSource } from "../../src/secrets/webhook-secrets.ts";
import type { Store } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { type FakeSecretsManager, startFakeSecretsManager } from "../../tools/fake-secrets-manager.ts";
import { getTestStore } from "../helpers/db.ts";
import { capturedLogger } from "../secrets/helpers.ts";
import { deliver, type Harness, placeOrder, startHarness, statusEvent } from "./support.ts";

const secret = () => `whsec_${randomBytes(32).toString("base64")}`;
const TTL_MS = 3_600_000;

let store: Store;
let h: Harness;
let fake: FakeSecretsManager;
/** The source the receiver asks; each test installs its own (its own secret id and clock). */
let source: WebhookSecretSource;

beforeAll(async () => {
  store = await getTestStore();
  fake = await startFakeSecretsManager();
  h = await startHarness(store, { secrets: (request?: { refresh?: boolean }) => source(request) });
});
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

/** A source as main.ts builds it for WEBHOOK_SECRET_ID, with a settable clock. */
function useSecretsManager(secretId: string) {
  let t = Date.parse("2026-11-24T10:00:00Z");
  const log = capturedLogger();
  const client = createSecretsManagerClient({
    endpoint: fake.endpoint,
    region: fake.region,
    credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret" },
    maxAttempts: 1,
  });
  source = createWebhookSecretSource({ client, secretId, ttlMs: TTL_MS, now: () => t, logger: log.logger });
  return {
    log,
    advance(ms: number) {
      t += ms;
    },
    reads: () => fake.calls.filter((c) => c.secretId === secretId && c.operation === "GetSecretValue").length,
  };
}

const event = (correlationId: string = randomUUID()) =>
  statusEvent(correlationId, "received", new Date().toISOString());

describe("webhook secrets from Secrets Manager (WEBHOOK_SECRET_ID)", () => {
  it("verifies deliveries with the one whsec_ value the secret holds, and refuses others", async () => {
    const current = secret();
    fake.putSecretValue("wh/single", `${current}\n`);
    const sm = useSecretsManager("wh/single");
    const { correlationId } = await placeOrder(h);
    const good = event(correlationId);
    const res = await deliver(h.url, good, { secret: current });
    expect(res.status).toBe(200);
    expect(await getEvent(store, good.id)).toMatchObject({ id: good.id });

    const forged = event();
    const refused = await deliver(h.url, forged, { secret: secret() });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ ok: false, error: "bad_signature" });
    expect(await getEvent(store, forged.id)).toBeNull();
    // Read once: the mismatch came within the re-read interval of the first read.
    expect(sm.reads()).toBe(1);
  });

  it.each([
    ["comma-separated", (a: string, b: string) => `${a},${b}`],
    ["separated by white space", (a: string, b: string) => `${a}\n${b}\n`],
    ["JSON", (a: string, b: string) => JSON.stringify({ secrets: [a, b] })],
  ])("accepts either of two secrets stored %s (a rotation in progress)", async (_what, format) => {
    const [oldSecret, newSecret] = [secret(), secret()];
    const id = `wh/two-${randomUUID().slice(0, 8)}`;
    fake.putSecretValue(id, format(oldSecret, newSecret));
    const sm = useSecretsManager(id);
    expect((await deliver(h.url, event(), { secret: oldSecret })).status).toBe(202);
    expect((await deliver(h.url, event(), { secret: newSecret })).status).toBe(202);
    // A sender signing with both during its own switch-over.
    expect((await deliver(h.url, event(), { secret: [secret(), newSecret] })).status).toBe(202);
    expect(sm.reads()).toBe(1);
  });

  it("picks up a rotation that retired the old secret at the first delivery signed with the new one", async () => {
    const [oldSecret, newSecret] = [secret(), secret()];
    fake.putSecretValue("wh/rotated", oldSecret);
    const sm = useSecretsManager("wh/rotated");
    expect((await deliver(h.url, event(), { secret: oldSecret })).status).toBe(202);

    // Minutes later, well within the 1 h cache: the secret now holds only the new value.
    sm.advance(5 * 60_000);
    fake.putSecretValue("wh/rotated", newSecret);
    const signedNew = event();
    const res = await deliver(h.url, signedNew, { secret: newSecret });
    expect(res.status).toBe(202);
    expect(await getEvent(store, signedNew.id)).not.toBeNull();
    expect(sm.reads()).toBe(2);

    // The retired secret is refused now, without another read (the rate limit).
    expect((await deliver(h.url, event(), { secret: oldSecret })).status).toBe(401);
    expect(sm.reads()).toBe(2);

    const changed = sm.log
      .lines()
      .find((l) => l.msg === "webhook signing secrets changed in Secrets Manager: now using the new ones");
    expect(changed).toMatchObject({ secretId: "wh/rotated", count: 1, reason: "mismatch" });
    for (const value of [oldSecret, newSecret]) expect(sm.log.text()).not.toContain(value.slice(6));
  });

  it("re-reads at most once per 30 s and once for a burst of mismatches, whatever they carry", async () => {
    const [first, second] = [secret(), secret()];
    fake.putSecretValue("wh/burst", first);
    const sm = useSecretsManager("wh/burst");
    expect((await deliver(h.url, event(), { secret: first })).status).toBe(202);
    expect(sm.reads()).toBe(1);

    // Forged deliveries: one re-read for the whole burst, then none until 30 s have passed.
    sm.advance(31_000);
    const forged = await Promise.all(
      Array.from({ length: 12 }, () => deliver(h.url, event(), { secret: secret() })),
    );
    expect(forged.map((r) => r.status)).toEqual(forged.map(() => 401));
    expect(sm.reads()).toBe(2);
    sm.advance(29_000);
    expect((await deliver(h.url, event(), { secret: secret() })).status).toBe(401);
    expect(sm.reads()).toBe(2);

    // A rotation, then a burst signed with the new secret: all accepted after one read.
    sm.advance(2_000);
    fake.putSecretValue("wh/burst", second);
    const rotated = await Promise.all(
      Array.from({ length: 12 }, () => deliver(h.url, event(), { secret: second })),
    );
    expect(rotated.map((r) => r.status)).toEqual(rotated.map(() => 202));
    expect(sm.reads()).toBe(3);
  });

  it("picks a rotation up after the cache TTL without any mismatch", async () => {
    const [oldSecret, newSecret] = [secret(), secret()];
    fake.putSecretValue("wh/ttl", oldSecret);
    const sm = useSecretsManager("wh/ttl");
    expect((await deliver(h.url, event(), { secret: oldSecret })).status).toBe(202);
    fake.putSecretValue("wh/ttl", `${newSecret},${oldSecret}`);
    sm.advance(TTL_MS);
    expect((await deliver(h.url, event(), { secret: oldSecret })).status).toBe(202);
    expect(sm.reads()).toBe(2);
    expect((await deliver(h.url, event(), { secret: newSecret })).status).toBe(202);
    expect(sm.reads()).toBe(2);
  });

  it("answers 503 with Retry-After while the secret is malformed or unreadable, so the supplier retries", async () => {
    fake.putSecretValue("wh/malformed", "hunter2-is-not-a-webhook-secret");
    useSecretsManager("wh/malformed");
    const malformed = await deliver(h.url, event());
    expect(malformed.status).toBe(503);
    expect(malformed.headers.get("retry-after")).toBe("5");
    const body = await malformed.text();
    expect(JSON.parse(body)).toMatchObject({ ok: false, error: "secrets_unavailable" });
    expect(body).not.toContain("hunter2");

    useSecretsManager("wh/does-not-exist");
    expect((await deliver(h.url, event())).status).toBe(503);
  });

  it("keeps verifying with the last good secret while Secrets Manager is down", async () => {
    const current = secret();
    fake.putSecretValue("wh/outage", current);
    const sm = useSecretsManager("wh/outage");
    expect((await deliver(h.url, event(), { secret: current })).status).toBe(202);
    fake.setFailure("unavailable");
    try {
      sm.advance(TTL_MS);
      expect((await deliver(h.url, event(), { secret: current })).status).toBe(202);
      // A mismatch during the outage: the re-read fails, the delivery is refused as it stands.
      sm.advance(31_000);
      expect((await deliver(h.url, event(), { secret: secret() })).status).toBe(401);
    } finally {
      fake.setFailure(null);
    }
    expect(sm.log.text()).toContain("using the last good ones");
  });
});
