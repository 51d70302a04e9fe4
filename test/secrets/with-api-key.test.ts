import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvKeyProvider } from "../../src/secrets/env-provider.ts";
import { keyFingerprint, RefusedKeys } from "../../src/secrets/refused-keys.ts";
import { oncePerKeySet, type UnauthorizedReport, withApiKey } from "../../src/secrets/with-api-key.ts";
import { SupplierServerError, UnauthorizedError } from "../../src/supplier/errors.ts";
import { redactApiKey } from "../../src/supplier/keys.ts";
import type { FakeSecretsManager } from "../../tools/fake-secrets-manager.ts";
import { newKey, startFakeSecretsManager, startHarness } from "./helpers.ts";

/** A stand-in for the supplier's auth check: 401 unless X-Api-Key is one of `accepted`. */
let supplier: Server;
let supplierUrl: string;
const accepted = new Set<string>();
const seenKeys: string[] = [];
let fake: FakeSecretsManager;

beforeAll(async () => {
  fake = await startFakeSecretsManager();
  supplier = createServer((req, res) => {
    const key = String(req.headers["x-api-key"] ?? "");
    seenKeys.push(key);
    if (key === "boom") {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(accepted.has(key) ? 200 : 401, { "content-type": "application/json" });
    res.end(accepted.has(key) ? JSON.stringify({ ok: true }) : "");
  });
  await new Promise<void>((resolve) => supplier.listen(0, "127.0.0.1", resolve));
  supplierUrl = `http://127.0.0.1:${(supplier.address() as AddressInfo).port}/orders/create`;
});
afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => supplier.close(resolve));
});

/** What the supplier client does with a 401, in miniature. */
async function callSupplier(key: string): Promise<string> {
  const response = await request(supplierUrl, { method: "POST", headers: { "x-api-key": key }, body: "{}" });
  await response.body.dump();
  if (response.statusCode === 401) throw new UnauthorizedError(redactApiKey(key));
  if (response.statusCode >= 500) throw new SupplierServerError(response.statusCode, "supplier failed");
  return key;
}

const secretName = () => `order-desk/with-api-key/${randomUUID()}`;

describe("withApiKey", () => {
  it("uses the cached key when the supplier accepts it", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    const key = newKey();
    fake.putSecretValue(id, key);
    accepted.add(key);

    expect(await withApiKey(h.provider, id, callSupplier)).toBe(key);
    expect(h.calls(id)).toBe(1);
  });

  it("on a 401 fetches the key again and retries once with the rotated key", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    const oldKey = newKey();
    const rotated = newKey();
    fake.putSecretValue(id, oldKey);
    await h.provider.getKey(id);
    // Rotated in Secrets Manager and revoked at the supplier while our cache still holds the old key.
    fake.putSecretValue(id, rotated);
    accepted.add(rotated);
    h.clock.advance(5_000);

    const used = await withApiKey(h.provider, id, callSupplier, { logger: h.log.logger });

    expect(used).toBe(rotated);
    expect(h.calls(id)).toBe(2);
    expect((await h.provider.getKey(id)).value).toBe(rotated);
  });

  it("falls back to AWSPREVIOUS once when the new AWSCURRENT key is not active at the supplier yet", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    const oldKey = newKey();
    const notYetActive = newKey();
    fake.putSecretValue(id, oldKey);
    fake.putSecretValue(id, notYetActive);
    accepted.add(oldKey);
    const before = seenKeys.length;

    const used = await withApiKey(h.provider, id, callSupplier, { logger: h.log.logger });

    expect(used).toBe(oldKey);
    // The refused key is not sent twice: the secret, read again, still holds it.
    expect(seenKeys.slice(before)).toEqual([notYetActive, oldKey]);
    const warning = h.log.lines().find((l) => String(l.msg).includes("accepted AWSPREVIOUS"));
    expect(warning).toBeDefined();
    expect(h.log.text()).not.toContain(oldKey);
    expect(h.log.text()).not.toContain(notYetActive);
  });

  it("rethrows the 401 after every key is rejected and reports it once per set of rejected keys", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    const a = newKey();
    const b = newKey();
    fake.putSecretValue(id, a);
    fake.putSecretValue(id, b);
    const reports: UnauthorizedReport[] = [];
    const onUnauthorized = oncePerKeySet((report) => {
      reports.push(report);
    });

    for (let i = 0; i < 3; i++) {
      h.clock.advance(2_000);
      await expect(
        withApiKey(h.provider, id, callSupplier, { onUnauthorized, logger: h.log.logger }),
      ).rejects.toBeInstanceOf(UnauthorizedError);
    }

    expect(reports).toHaveLength(1);
    expect(reports[0]?.tried.map((k) => k.stage)).toEqual(["AWSCURRENT", "AWSPREVIOUS"]);
    expect(JSON.stringify(reports) + h.log.text()).not.toMatch(new RegExp(`${a}|${b}`));
    expect(h.log.lines().filter((l) => l.level === 50)).toHaveLength(3);
  });

  it("remembers a refused key by fingerprint and skips it on later calls until the secret changes", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    const oldKey = newKey();
    const notYetActive = newKey();
    const fixed = newKey();
    fake.putSecretValue(id, oldKey);
    fake.putSecretValue(id, notYetActive);
    accepted.add(oldKey);
    const refused = new RefusedKeys({ now: h.clock.now });
    const before = seenKeys.length;

    for (let i = 0; i < 3; i++) {
      h.clock.advance(2_000);
      expect(await withApiKey(h.provider, id, callSupplier, { refused, logger: h.log.logger })).toBe(oldKey);
    }
    // One 401 in all, not two per call.
    expect(seenKeys.slice(before)).toEqual([notYetActive, oldKey, oldKey, oldKey]);
    expect(refused.fingerprints(id)).toEqual([keyFingerprint(notYetActive)]);
    expect(h.log.text()).not.toContain(notYetActive);

    // The secret changes: the new key is read (at the next re-check) and sent at once.
    fake.putSecretValue(id, fixed);
    accepted.add(fixed);
    h.clock.advance(61_000);
    const after = seenKeys.length;
    expect(await withApiKey(h.provider, id, callSupplier, { refused, logger: h.log.logger })).toBe(fixed);
    expect(seenKeys.slice(after)).toEqual([fixed]);
  });

  it("sends nothing when every key was refused before, and says so", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    fake.putSecretValue(id, newKey());
    fake.putSecretValue(id, newKey());
    const refused = new RefusedKeys({ now: h.clock.now });
    const reports: UnauthorizedReport[] = [];
    const onUnauthorized = (report: UnauthorizedReport) => {
      reports.push(report);
    };
    await expect(
      withApiKey(h.provider, id, callSupplier, { refused, onUnauthorized }),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const before = seenKeys.length;
    h.clock.advance(2_000);
    await expect(
      withApiKey(h.provider, id, callSupplier, { refused, onUnauthorized, logger: h.log.logger }),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    expect(seenKeys.length).toBe(before);
    expect(reports).toHaveLength(1);
    expect(h.log.text()).toContain("not sending them again until the secret changes");

    // A refusal is forgotten after an hour, so a key the supplier activates late is tried again.
    h.clock.advance(3_600_000);
    await expect(withApiKey(h.provider, id, callSupplier, { refused })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(seenKeys.length).toBeGreaterThan(before);
  });

  it("does not retry errors other than 401", async () => {
    const h = await startHarness(fake);
    const id = secretName();
    fake.putSecretValue(id, newKey());
    let calls = 0;

    await expect(
      withApiKey(h.provider, id, async () => {
        calls++;
        return callSupplier("boom");
      }),
    ).rejects.toBeInstanceOf(SupplierServerError);
    expect(calls).toBe(1);
  });

  it("with a key from the environment, sends it once and then fails (no other key to try)", async () => {
    const key = newKey();
    const provider = new EnvKeyProvider({ value: key, production: false });
    const before = seenKeys.length;

    await expect(withApiKey(provider, "SUPPLIER_API_KEY", callSupplier)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    // Read again, the environment holds the same key: a refused key is never sent twice.
    expect(seenKeys.slice(before)).toEqual([key]);
  });
});
