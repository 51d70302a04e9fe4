/**
 * `startOrderDesk` starts opening the store before it reads the customer file (main.ts: a new store is unpacked while
 * the rest loads), but the migrations wait for the file: a mistake in it stops the start with the file's error, no
 * migration applied to an existing store, the store closed (its lock released), and a store this start created
 * taken back.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CustomerConfigError } from "../../src/config/customer.ts";
import { loadConfig } from "../../src/config.ts";
import { startOrderDesk } from "../../src/main.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { openStore } from "../../src/store/db.ts";
import { fakeSlackToken } from "../../tools/fake-tokens.ts";

const silent = pino({ level: "silent" });

describe("a mistake in the customer file", () => {
  let dir: string;
  let brokenFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "order-desk-customer-file-"));
    brokenFile = join(dir, "order-desk.config.yml");
    await writeFile(brokenFile, "profiles: [\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const configFor = (dataDir: string) =>
    loadConfig({
      ORDER_DESK_CONFIG: brokenFile,
      ORDER_DESK_DATA_DIR: dataDir,
      SLACK_MODE: "http",
      // Made up at run time, like every credential in the tests: nothing shaped like a real one is committed.
      SLACK_BOT_TOKEN: fakeSlackToken("xoxb"),
      SLACK_SIGNING_SECRET: randomBytes(16).toString("hex"),
      // Never reached: the start stops before Slack is asked anything.
      SLACK_API_URL: "http://127.0.0.1:9/api/",
      SUPPLIER_BASE_URL: "http://127.0.0.1:9/",
      SUPPLIER_API_KEY: generateTestKey(),
      WEBHOOK_SECRETS: `whsec_${randomBytes(24).toString("base64")}`,
    });

  it("stops a first start with the file's error and leaves no data directory", async () => {
    const dataDir = join(dir, "new");
    await expect(
      startOrderDesk(configFor(dataDir), { logger: silent, defaultMetrics: false }),
    ).rejects.toThrow(CustomerConfigError);
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000);

  it("applies no migration to an existing store, and leaves it closed for the next start", async () => {
    const dataDir = join(dir, "existing");
    const store = await openStore({ dataDir, logger: silent });
    const { rows } = await store.query<{ name: string }>(
      "DELETE FROM schema_migrations WHERE name = (SELECT max(name) FROM schema_migrations) RETURNING name",
    );
    const pending = rows[0]?.name as string;
    await store.close();

    await expect(
      startOrderDesk(configFor(dataDir), { logger: silent, defaultMetrics: false }),
    ).rejects.toThrow(CustomerConfigError);

    // The lock is released and the migration still pending: opening without migrating shows it absent.
    const after = await openStore({ dataDir, logger: silent, migrate: false });
    try {
      const left = await after.query("SELECT 1 FROM schema_migrations WHERE name = $1", [pending]);
      expect(left.rowCount).toBe(0);
    } finally {
      await after.close();
    }
  }, 60_000);
});
