import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretsManagerClient } from "../../src/secrets/client.ts";
import { SecretMalformedError, SecretNotFoundError } from "../../src/secrets/errors.ts";
import {
  createWebhookSecretSource,
  parseWebhookSecrets,
  readWebhookSecrets,
} from "../../src/secrets/webhook-secrets.ts";
import type { FakeSecretsManager } from "../../tools/fake-secrets-manager.ts";
import { capturedLogger, startFakeSecretsManager } from "./helpers.ts";

const secret = () => `whsec_${randomBytes(32).toString("base64")}`;
const A = secret();
const B = secret();

describe("parseWebhookSecrets", () => {
  it.each([
    ["one value", `${A}\n`, [A]],
    ["values separated by commas", `${A},${B}`, [A, B]],
    ["values separated by white space", `${A} \n ${B}`, [A, B]],
    ["JSON", JSON.stringify({ secrets: [A, ` ${B} `] }), [A, B]],
    ["the same value twice", `${A}, ${A}`, [A]],
  ])("reads %s", (_what, text, expected) => {
    expect(parseWebhookSecrets(text, "order-desk/webhooks")).toEqual(expected);
  });

  it.each([
    ["an empty string", ""],
    ["a value without the whsec_ prefix", A.slice("whsec_".length)],
    ["one good and one truncated value", `${A},${B.slice(0, -1)}`],
    ["JSON without a secrets list", JSON.stringify({ secret: A })],
    ["JSON that does not parse", `{"secrets": ["${A}"`],
    ["no SecretString", undefined],
  ])("refuses %s, naming the secret and never a value", (_what, text) => {
    let error: unknown;
    try {
      parseWebhookSecrets(text, "order-desk/webhooks");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SecretMalformedError);
    const message = (error as Error).message;
    expect(message).toContain("order-desk/webhooks");
    expect(message).not.toContain(A.slice(6, 20));
    expect(message).not.toContain(B.slice(6, 20));
  });
});

describe("the webhook secret source over the real SDK", () => {
  let fake: FakeSecretsManager;
  const client = () =>
    createSecretsManagerClient({
      endpoint: fake.endpoint,
      region: fake.region,
      credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret" },
      maxAttempts: 1,
    });
  const reads = (id: string) =>
    fake.calls.filter((c) => c.secretId === id && c.operation === "GetSecretValue").length;

  beforeAll(async () => {
    fake = await startFakeSecretsManager();
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("reads the secrets with their version, and names a missing secret", async () => {
    const { versionId } = fake.putSecretValue("wh/read", `${A},${B}`);
    expect(await readWebhookSecrets(client(), "wh/read")).toEqual({ secrets: [A, B], versionId });
    await expect(readWebhookSecrets(client(), "wh/none")).rejects.toBeInstanceOf(SecretNotFoundError);
  });

  it("caches for the TTL, re-reads on a refresh at most once per interval, and logs counts, not values", async () => {
    let t = 0;
    const log = capturedLogger();
    fake.putSecretValue("wh/cache", A);
    const source = createWebhookSecretSource({
      client: client(),
      secretId: "wh/cache",
      ttlMs: 3_600_000,
      minRefreshIntervalMs: 30_000,
      now: () => t,
      logger: log.logger,
    });
    expect(await source()).toEqual([A]);
    expect(await source({ refresh: true })).toEqual([A]);
    expect(reads("wh/cache")).toBe(1);

    fake.putSecretValue("wh/cache", B);
    t += 10_000;
    expect(await source({ refresh: true })).toEqual([A]);
    expect(reads("wh/cache")).toBe(1);
    t += 25_000;
    const [one, two] = await Promise.all([source({ refresh: true }), source({ refresh: true })]);
    expect([one, two]).toEqual([[B], [B]]);
    expect(reads("wh/cache")).toBe(2);

    fake.putSecretValue("wh/cache", `${B},${A}`);
    t += 3_600_000;
    expect(await source()).toEqual([B, A]);
    expect(reads("wh/cache")).toBe(3);

    expect(log.text()).toContain("webhook signing secrets changed");
    expect(log.lines().find((l) => l.reason === "ttl")).toMatchObject({ secretId: "wh/cache", count: 2 });
    for (const value of [A, B]) expect(log.text()).not.toContain(value.slice(6, 20));
  });

  it("keeps the last good secrets when Secrets Manager fails or the new value is malformed", async () => {
    let t = 0;
    fake.putSecretValue("wh/outage", A);
    const source = createWebhookSecretSource({
      client: client(),
      secretId: "wh/outage",
      ttlMs: 60_000,
      now: () => t,
    });
    expect(await source()).toEqual([A]);
    fake.setFailure("unavailable");
    try {
      t += 61_000;
      expect(await source()).toEqual([A]);
      t += 31_000;
      expect(await source({ refresh: true })).toEqual([A]);
    } finally {
      fake.setFailure(null);
    }
    fake.putSecretValue("wh/outage", "whsec_tooshort");
    t += 61_000;
    expect(await source()).toEqual([A]);
  });

  it("throws a malformed secret when it has no good value to fall back on", async () => {
    fake.putSecretValue("wh/bad", "hunter2-not-a-webhook-secret");
    const source = createWebhookSecretSource({ client: client(), secretId: "wh/bad", ttlMs: 60_000 });
    const error = await source().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretMalformedError);
    expect((error as Error).message).not.toContain("hunter2");
  });
});
