import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvKeyProvider } from "../../src/secrets/env-provider.ts";
import { type ExpiryWarning, ExpiryWatch } from "../../src/secrets/expiry.ts";
import type { FakeSecretsManager } from "../../tools/fake-secrets-manager.ts";
import { capturedLogger, newKey, startFakeSecretsManager, startHarness } from "./helpers.ts";

let fake: FakeSecretsManager;
beforeAll(async () => {
  fake = await startFakeSecretsManager();
});
afterAll(async () => {
  await fake.close();
});

const DAY = 86_400_000;
// Noon UTC keeps the calendar day the same in every time zone from UTC-11 to UTC+11.
const EXPIRES = new Date("2026-12-15T12:00:00Z");
const daysBefore = (days: number, extraMs = 0) => new Date(EXPIRES.getTime() - days * DAY + extraMs);

describe("ExpiryWatch", () => {
  it("warns at 30, 14, 7 and 1 days before expiry, each once, then errors once when expired", async () => {
    const h = await startHarness(fake, { ttlMs: 365 * DAY });
    const id = `expiry/${randomUUID()}`;
    const key = newKey();
    fake.putSecretValue(id, JSON.stringify({ apiKey: key, expiresAt: EXPIRES.toISOString() }));
    const delivered: ExpiryWarning[] = [];
    const watch = new ExpiryWatch({
      provider: h.provider,
      secretIds: [id],
      logger: h.log.logger,
      onWarning: (w) => {
        delivered.push(w);
      },
    });

    const timeline: Array<[Date, number | null | "none"]> = [
      [daysBefore(40), "none"],
      [daysBefore(23), 30],
      [daysBefore(22), "none"],
      [daysBefore(13, -1), 14],
      [daysBefore(10), "none"],
      [daysBefore(6), 7],
      [daysBefore(0.5), 1],
      [daysBefore(0.25), "none"],
      [daysBefore(-1), null],
      [daysBefore(-2), "none"],
    ];
    for (const [now, expected] of timeline) {
      const warnings = await watch.check(now);
      if (expected === "none") expect(warnings, now.toISOString()).toEqual([]);
      else expect(warnings.map((w) => w.thresholdDays)).toEqual([expected]);
    }

    expect(delivered.map((w) => w.level)).toEqual(["warn", "warn", "warn", "warn", "error"]);
    expect(delivered[0]?.message).toContain("expires on Tue 15 Dec 2026, in 23 days");
    expect(delivered[0]?.message).toContain(`secret ${id}`);
    expect(delivered[3]?.message).toContain("in 12 hours");
    expect(delivered[4]?.message).toContain("expired on Tue 15 Dec 2026, 1 day ago");
    const logged = h.log.lines().filter((l) => l.level === 40 || l.level === 50);
    expect(logged.map((l) => l.level)).toEqual([40, 40, 40, 40, 50]);
    expect(h.log.text()).not.toContain(key);
  });

  it("announces only the nearest threshold when first seen close to expiry", async () => {
    const h = await startHarness(fake, { ttlMs: 365 * DAY });
    const id = `expiry/${randomUUID()}`;
    fake.putSecretValue(id, JSON.stringify({ apiKey: newKey(), expiresAt: EXPIRES.toISOString() }));
    const watch = new ExpiryWatch({ provider: h.provider, secretIds: [id] });

    expect((await watch.check(daysBefore(5))).map((w) => w.thresholdDays)).toEqual([7]);
    expect(await watch.check(daysBefore(4))).toEqual([]);
  });

  it("warns again for a new key version after rotation", async () => {
    const h = await startHarness(fake, { ttlMs: 1_000 });
    const id = `expiry/${randomUUID()}`;
    fake.putSecretValue(id, JSON.stringify({ apiKey: newKey(), expiresAt: EXPIRES.toISOString() }));
    const watch = new ExpiryWatch({ provider: h.provider, secretIds: [id] });
    h.clock.set(daysBefore(3).toISOString());
    expect(await watch.check(daysBefore(3))).toHaveLength(1);

    // Someone stores a key that expires soon too (e.g. a short-lived replacement).
    fake.putSecretValue(id, JSON.stringify({ apiKey: newKey(), expiresAt: EXPIRES.toISOString() }));
    h.clock.advance(2_000);
    expect(await watch.check(daysBefore(3, 2_000))).toHaveLength(1);
  });

  it("derives expiry from the version's CreatedDate plus 360 days when the secret does not say", async () => {
    const h = await startHarness(fake);
    const id = `expiry/${randomUUID()}`;
    fake.putSecretValue(id, newKey(), { createdDate: new Date("2025-12-20T12:00:00Z") });
    const watch = new ExpiryWatch({ provider: h.provider, secretIds: [id] });

    const [warning] = await watch.check(new Date("2026-11-22T12:00:00Z"));

    expect(warning?.expiresAt).toEqual(EXPIRES);
    expect(warning?.message).toContain(
      "expires on Tue 15 Dec 2026, in 23 days (estimated from the version's creation date)",
    );
  });

  it("logs and skips a secret it cannot read instead of throwing", async () => {
    const h = await startHarness(fake);
    const log = capturedLogger();
    const watch = new ExpiryWatch({
      provider: h.provider,
      secretIds: [`expiry/missing-${randomUUID()}`],
      logger: log.logger,
    });

    expect(await watch.check(new Date())).toEqual([]);
    expect(log.lines()[0]).toMatchObject({ level: 50, err: { code: "SECRET_NOT_FOUND" } });
  });
});

describe("ExpiryWatch.describeExpiry (order-desk doctor)", () => {
  it("describes the current and the AWSPREVIOUS key", async () => {
    const h = await startHarness(fake);
    const id = `expiry/${randomUUID()}`;
    fake.putSecretValue(id, newKey(), { createdDate: new Date("2025-06-01T00:00:00Z") });
    const current = newKey();
    fake.putSecretValue(id, JSON.stringify({ apiKey: current, expiresAt: "2027-05-20" }), {
      createdDate: new Date("2026-05-25T00:00:00Z"),
    });
    const watch = new ExpiryWatch({ provider: h.provider, secretIds: [id] });

    const report = await watch.describeExpiry(id, new Date("2026-06-01T12:00:00Z"));

    expect(report.current).toMatchObject({
      stage: "AWSCURRENT",
      status: "ok",
      expirySource: "secret",
      // A bare date is the start of that day in the process's time zone.
      expiresAt: new Date(2027, 4, 20),
    });
    expect(report.current.message).toMatch(/expires on Thu 20 May 2027, in 352 days\.$/);
    expect(report.previous).toMatchObject({
      stage: "AWSPREVIOUS",
      status: "expiring",
      expirySource: "created-date",
    });
    // Grace period: 30 days after the new version was created.
    expect(report.previous?.expiresAt).toEqual(new Date("2026-06-24T00:00:00Z"));
    expect(JSON.stringify(report)).not.toContain(current);
  });

  it("says the expiry is unknown for a plain key from the environment", async () => {
    const watch = new ExpiryWatch({
      provider: new EnvKeyProvider({ value: newKey(), production: false }),
      secretIds: ["SUPPLIER_API_KEY"],
    });

    const report = await watch.describeExpiry("SUPPLIER_API_KEY", new Date());

    expect(report.current).toMatchObject({ stage: "env", status: "unknown", expiresAt: null });
    expect(report.current.message).toContain('Add "expiresAt"');
    expect(report.previous).toBeNull();
  });
});
