import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { type Logger, pino } from "pino";
import { createSecretsManagerClient } from "../../src/secrets/client.ts";
import {
  SecretsManagerKeyProvider,
  type SecretsManagerKeyProviderOptions,
} from "../../src/secrets/secrets-manager-provider.ts";
import { type FakeSecretsManager, startFakeSecretsManager } from "../../tools/fake-secrets-manager.ts";

export function newKey(environment: "live" | "test" = "live"): string {
  return `ops_${environment}_${randomBytes(16).toString("hex")}`;
}

/** A settable clock. */
export function manualClock(start = "2026-06-01T12:00:00Z") {
  let t = Date.parse(start);
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
    set(iso: string) {
      t = Date.parse(iso);
    },
  };
}

/** A pino logger whose output lands in `text()`, to assert what is (not) logged. */
export function capturedLogger(): {
  logger: Logger;
  lines: () => Record<string, unknown>[];
  text: () => string;
} {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  const logger = pino({ level: "trace" }, stream);
  const text = () => chunks.join("");
  return {
    logger,
    text,
    lines: () =>
      text()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

export interface Harness {
  fake: FakeSecretsManager;
  clock: ReturnType<typeof manualClock>;
  log: ReturnType<typeof capturedLogger>;
  provider: SecretsManagerKeyProvider;
  /** Counts GetSecretValue/DescribeSecret calls for one secret. */
  calls(secretId: string, operation?: string): number;
}

export async function startHarness(
  fake: FakeSecretsManager,
  options: Partial<SecretsManagerKeyProviderOptions> & { requestTimeoutMs?: number } = {},
): Promise<Harness> {
  const clock = manualClock();
  const log = capturedLogger();
  const { requestTimeoutMs, ...providerOptions } = options;
  const client = createSecretsManagerClient({
    endpoint: fake.endpoint,
    region: fake.region,
    credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret" },
    // One attempt keeps failure tests fast; the SDK's own retries are not what is under test.
    maxAttempts: 1,
    requestTimeoutMs: requestTimeoutMs ?? 2_000,
  });
  const provider = new SecretsManagerKeyProvider({
    client,
    now: clock.now,
    logger: log.logger,
    ...providerOptions,
  });
  return {
    fake,
    clock,
    log,
    provider,
    calls: (secretId, operation = "GetSecretValue") =>
      fake.calls.filter((c) => c.secretId === secretId && c.operation === operation).length,
  };
}

export { startFakeSecretsManager };
