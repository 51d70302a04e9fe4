import { randomUUID } from "node:crypto";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SecretAccessDeniedError,
  SecretMalformedError,
  SecretNotFoundError,
  SecretUnavailableError,
} from "../../src/secrets/errors.ts";
import type { FakeSecretsManager } from "../../tools/fake-secrets-manager.ts";
import { newKey, startFakeSecretsManager, startHarness } from "./helpers.ts";

let fake: FakeSecretsManager;
beforeAll(async () => {
  fake = await startFakeSecretsManager();
});
afterAll(async () => {
  await fake.close();
});

const HOUR = 3_600_000;
const secretName = () => `order-desk/supplier-key/${randomUUID()}`;

describe("SecretsManagerKeyProvider", () => {
  it("serves the key from the cache until the TTL passes, then fetches it again", async () => {
    const h = await startHarness(fake, { ttlMs: HOUR });
    const id = secretName();
    const value = newKey();
    const { versionId } = fake.putSecretValue(id, value);

    const first = await h.provider.getKey(id);
    expect(first).toMatchObject({ value, versionId, stage: "AWSCURRENT", environment: "live" });
    expect(first.redacted).toBe(`ops_live_…${value.slice(-4)}`);

    h.clock.advance(HOUR - 1);
    await h.provider.getKey(id);
    expect(h.calls(id)).toBe(1);

    h.clock.advance(1);
    await h.provider.getKey(id);
    expect(h.calls(id)).toBe(2);
  });

  it("shows the redacted form, not the key, when an ApiKey object is logged or printed", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    const value = newKey();
    fake.putSecretValue(id, value);

    const key = await h.provider.getKey(id);
    h.log.logger.info({ apiKeyObject: key }, "someone logged the whole object");

    expect(key.value).toBe(value);
    expect(JSON.stringify(key)).not.toContain(value);
    expect(inspect(key)).not.toContain(value);
    expect(h.log.text()).not.toContain(value);
    expect(h.log.text()).toContain(key.redacted);
  });

  it("shares one fetch between concurrent callers", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    fake.putSecretValue(id, newKey());

    const keys = await Promise.all(Array.from({ length: 20 }, () => h.provider.getKey(id)));

    expect(new Set(keys.map((k) => k.value)).size).toBe(1);
    expect(h.calls(id)).toBe(1);
  });

  it("picks up a rotation on the next fetch after the TTL", async () => {
    const h = await startHarness(fake, { ttlMs: HOUR });
    const id = secretName();
    const oldKey = newKey();
    const newer = newKey();
    fake.putSecretValue(id, oldKey);
    expect((await h.provider.getKey(id)).value).toBe(oldKey);

    const rotated = fake.putSecretValue(id, newer);
    expect((await h.provider.getKey(id)).value).toBe(oldKey);
    h.clock.advance(HOUR);
    const after = await h.provider.getKey(id);

    expect(after).toMatchObject({ value: newer, versionId: rotated.versionId });
    expect(h.log.lines().some((l) => String(l.msg).includes("rotated"))).toBe(true);
    const previous = await h.provider.previous(id);
    expect(previous).toMatchObject({ value: oldKey, stage: "AWSPREVIOUS" });
  });

  it("serves the last good key while Secrets Manager fails, backing off, and logs the failure without the key", async () => {
    const h = await startHarness(fake, { ttlMs: HOUR, backoff: { initialMs: 10_000, maxMs: 60_000 } });
    const id = secretName();
    const value = newKey();
    fake.putSecretValue(id, value);
    await h.provider.getKey(id);

    fake.setFailure("unavailable");
    try {
      h.clock.advance(HOUR);
      expect((await h.provider.getKey(id)).value).toBe(value);
      expect(h.calls(id)).toBe(2);
      // Within the backoff window: stale value, no new request.
      h.clock.advance(5_000);
      expect((await h.provider.getKey(id)).value).toBe(value);
      expect(h.calls(id)).toBe(2);
      // After it: one more try, which fails again, and the wait doubles.
      h.clock.advance(5_000);
      expect((await h.provider.getKey(id)).value).toBe(value);
      expect(h.calls(id)).toBe(3);
      h.clock.advance(19_000);
      await h.provider.getKey(id);
      expect(h.calls(id)).toBe(3);
    } finally {
      fake.setFailure(null);
    }
    h.clock.advance(1_000);
    expect((await h.provider.getKey(id)).value).toBe(value);
    expect(h.calls(id)).toBe(4);

    const warnings = h.log.lines().filter((l) => l.level === 40);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({
      secretId: id,
      retryInMs: 10_000,
      err: { code: "SECRET_UNAVAILABLE" },
    });
    expect(warnings[1]).toMatchObject({ retryInMs: 20_000 });
    expect(h.log.text()).not.toContain(value);
  });

  it("throws SecretUnavailableError when Secrets Manager fails and there is no good value yet", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    fake.putSecretValue(id, newKey());
    fake.setFailure("throttled");
    try {
      const error = await h.provider.getKey(id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SecretUnavailableError);
      expect((error as SecretUnavailableError).secretId).toBe(id);
      expect((error as Error).message).toContain(id);
    } finally {
      fake.setFailure(null);
    }
  });

  it("gives up on a hanging Secrets Manager after the request timeout", async () => {
    const h = await startHarness(fake, { requestTimeoutMs: 200 });
    const id = secretName();
    fake.putSecretValue(id, newKey());
    fake.setFailure("hang");
    try {
      const started = Date.now();
      await expect(h.provider.getKey(id)).rejects.toBeInstanceOf(SecretUnavailableError);
      // Secrets Manager never answers: any bound shows the timeout ended the wait.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      fake.setFailure(null);
    }
  });

  it("names the secret and what to check when it does not exist", async () => {
    const h = await startHarness(fake);
    const id = secretName();

    const error = await h.provider.getKey(id).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SecretNotFoundError);
    expect(error).toMatchObject({ code: "SECRET_NOT_FOUND", secretId: id });
    expect((error as Error).message).toContain(id);
    expect((error as Error).message).toContain("region us-east-1");
    expect((error as Error).message).toMatch(/AWSCURRENT/);
  });

  it("names the secret and the IAM permissions needed when access is denied", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    fake.putSecretValue(id, newKey());
    fake.setFailure("denied");
    try {
      const error = await h.provider.getKey(id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SecretAccessDeniedError);
      expect((error as Error).message).toContain(id);
      expect((error as Error).message).toContain("secretsmanager:GetSecretValue");
      expect((error as Error).message).toContain("secretsmanager:DescribeSecret");
    } finally {
      fake.setFailure(null);
    }
  });

  it("rejects a malformed key naming the secret, never the value, in the error and the log", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    const bad = `ops_live_${"Z".repeat(32)}`;
    fake.putSecretValue(id, bad);

    const error = await h.provider.getKey(id).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SecretMalformedError);
    expect((error as Error).message).toContain(id);
    for (const text of [
      (error as Error).message,
      JSON.stringify(error),
      String((error as Error).cause),
      h.log.text(),
    ]) {
      expect(text).not.toContain(bad);
      expect(text).not.toContain("ZZZZ");
    }
  });

  it("rejects JSON that is not the expected shape, listing the field names but not their values", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    const value = newKey();
    fake.putSecretValue(id, JSON.stringify({ SUPPLIER_API_KEY: value }));

    const error = await h.provider.getKey(id).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SecretMalformedError);
    expect((error as Error).message).toContain("SUPPLIER_API_KEY");
    expect((error as Error).message).not.toContain(value);
  });

  it("does not quote invalid JSON back in the error", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    const value = newKey();
    fake.putSecretValue(id, `{"apiKey": "${value}"`);

    const error = await h.provider.getKey(id).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SecretMalformedError);
    expect((error as Error).message).toContain("not valid JSON");
    expect(JSON.stringify(error) + String((error as Error).cause) + (error as Error).message).not.toContain(
      value,
    );
  });

  it("reads the JSON form with expiresAt and trims a trailing newline from the plain form", async () => {
    const h = await startHarness(fake);
    const jsonId = secretName();
    const plainId = secretName();
    const a = newKey("test");
    const b = newKey();
    fake.putSecretValue(
      jsonId,
      JSON.stringify({ apiKey: a, expiresAt: "2027-03-01T00:00:00Z", note: "from onboarding" }),
    );
    fake.putSecretValue(plainId, `${b}\n`, { createdDate: new Date("2026-01-10T00:00:00Z") });

    expect(await h.provider.getKey(jsonId)).toMatchObject({
      value: a,
      environment: "test",
      expiresAt: new Date("2027-03-01T00:00:00Z"),
      expirySource: "secret",
    });
    // No expiresAt: the version's CreatedDate + 360 days (spec: default key lifetime).
    expect(await h.provider.getKey(plainId)).toMatchObject({
      value: b,
      expiresAt: new Date("2027-01-05T00:00:00Z"),
      expirySource: "created-date",
    });
  });

  it("rejects a binary secret with a message saying to store a SecretString", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    fake.putSecretValue(id, new TextEncoder().encode(newKey()));

    await expect(h.provider.getKey(id)).rejects.toThrow(/SecretString/);
  });

  it("reports no previous key when the secret has never been rotated, and the grace-period end when it has", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    fake.putSecretValue(id, newKey(), { createdDate: new Date("2025-06-01T00:00:00Z") });
    expect(await h.provider.previous(id)).toBeNull();

    const id2 = secretName();
    fake.putSecretValue(id2, newKey(), { createdDate: new Date("2025-06-01T00:00:00Z") });
    fake.putSecretValue(id2, newKey(), { createdDate: new Date("2026-05-20T00:00:00Z") });
    await h.provider.getKey(id2);
    const previous = await h.provider.previous(id2);
    // The rotated key works 30 days after the new one arrived (spec: Authentication 5).
    expect(previous?.expiresAt).toEqual(new Date("2026-06-19T00:00:00Z"));
  });

  it("forgets a cached 'no previous key' when it sees a rotation", async () => {
    const h = await startHarness(fake, { ttlMs: HOUR });
    const id = secretName();
    const first = newKey();
    fake.putSecretValue(id, first);
    await h.provider.getKey(id);
    expect(await h.provider.previous(id)).toBeNull();

    fake.putSecretValue(id, newKey());
    h.clock.advance(2_000);
    await h.provider.refresh(id);

    expect((await h.provider.previous(id))?.value).toBe(first);
  });

  it("refresh fetches again despite a fresh cache, but coalesces a burst of refreshes", async () => {
    const h = await startHarness(fake, { ttlMs: HOUR });
    const id = secretName();
    fake.putSecretValue(id, newKey());
    await h.provider.getKey(id);
    const rotated = newKey();
    fake.putSecretValue(id, rotated);

    h.clock.advance(2_000);
    const results = await Promise.all([
      h.provider.refresh(id),
      h.provider.refresh(id),
      h.provider.refresh(id),
    ]);
    await h.provider.refresh(id);

    expect(results.map((k) => k.value)).toEqual([rotated, rotated, rotated]);
    expect(h.calls(id)).toBe(2);
  });
});
