import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretsManagerClient } from "../../src/secrets/client.ts";
import { EnvKeyProvider } from "../../src/secrets/env-provider.ts";
import { SecretMalformedError, SecretsConfigurationError } from "../../src/secrets/errors.ts";
import { createApiKeyProvider } from "../../src/secrets/factory.ts";
import { SecretsManagerKeyProvider } from "../../src/secrets/secrets-manager-provider.ts";
import type { FakeSecretsManager } from "../../tools/fake-secrets-manager.ts";
import { capturedLogger, newKey, startFakeSecretsManager } from "./helpers.ts";

let fake: FakeSecretsManager;
beforeAll(async () => {
  fake = await startFakeSecretsManager();
});
afterAll(async () => {
  await fake.close();
});

const credentials = { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret" };

describe("createApiKeyProvider", () => {
  it("refuses both a secret id and a key from the environment, without echoing the key", () => {
    const key = newKey();
    const error = (() => {
      try {
        createApiKeyProvider({ secretId: "order-desk/supplier", envKey: key });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SecretsConfigurationError);
    expect((error as Error).message).toMatch(/SUPPLIER_API_KEY_SECRET_ID and SUPPLIER_API_KEY/);
    expect(JSON.stringify(error) + (error as Error).message).not.toContain(key);
  });

  it("refuses neither being set", () => {
    expect(() => createApiKeyProvider({})).toThrow(SecretsConfigurationError);
  });

  it("reads from Secrets Manager when given a secret id", async () => {
    const id = `factory/${randomUUID()}`;
    const key = newKey();
    fake.putSecretValue(id, key);

    const configured = createApiKeyProvider({
      secretId: id,
      clientOptions: { endpoint: fake.endpoint, region: fake.region, credentials, maxAttempts: 1 },
    });

    expect(configured.source).toBe("secrets-manager");
    // Built on first use (the AWS SDK loads then); every call goes to Secrets Manager's provider.
    expect((await configured.provider.getKey(configured.secretId)).value).toBe(key);
    expect((await configured.provider.refresh(configured.secretId)).stage).toBe("AWSCURRENT");
    expect(await configured.provider.previous(configured.secretId)).toBeNull();
  });

  it("uses the environment key and warns once in production mode, without the key", async () => {
    const key = newKey();
    const log = capturedLogger();

    const configured = createApiKeyProvider({ envKey: key, production: true, logger: log.logger });
    await configured.provider.getKey(configured.secretId);
    await configured.provider.getKey("other-profile-secret");

    expect(configured.source).toBe("env");
    expect(await configured.provider.getKey("x")).toMatchObject({
      value: key,
      stage: "env",
      expiresAt: null,
    });
    const warnings = log.lines().filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.msg)).toContain("Secrets Manager");
    expect(log.text()).not.toContain(key);
  });

  it("does not warn about the environment key outside production", () => {
    const log = capturedLogger();
    new EnvKeyProvider({ value: newKey("test"), production: false, logger: log.logger });
    expect(log.lines()).toEqual([]);
  });

  it("rejects a malformed environment key naming the variable, not the value", () => {
    const bad = "ops_live_not-a-real-key-at-all";
    try {
      new EnvKeyProvider({ value: bad, production: false });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SecretMalformedError);
      expect((error as Error).message).toContain("SUPPLIER_API_KEY");
      expect((error as Error).message).not.toContain(bad);
    }
  });
});

describe("createSecretsManagerClient", () => {
  it("honours AWS_ENDPOINT_URL_SECRETS_MANAGER through the SDK's own endpoint resolution", async () => {
    const id = `endpoint/${randomUUID()}`;
    const key = newKey();
    fake.putSecretValue(id, key);
    const saved = process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = fake.endpoint;
    try {
      const provider = new SecretsManagerKeyProvider({
        client: createSecretsManagerClient({ region: fake.region, credentials, maxAttempts: 1 }),
      });
      expect((await provider.getKey(id)).value).toBe(key);
    } finally {
      if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
      else process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = saved;
    }
  });
});
