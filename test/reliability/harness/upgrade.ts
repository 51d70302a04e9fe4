/**
 * The upgrade fixtures (test/reliability/fixtures/upgrade/, built by tools/upgrade-fixture/build.ts with the
 * previous release's code) restored for the current code: the store into a fresh PGlite directory or a fresh
 * PostgreSQL database, the sandbox's tables into a SQL store of its own (so that an order it holds is refused as
 * a duplicate, not placed again), and the fake Slack's messages into a new fake workspace (so that the app's
 * threads, DMs and alerts from before are there to update and reply to).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { SANDBOX_SCHEMA_SQL, type SandboxDatabase } from "../../../src/sandbox/sql-store.ts";
import type { FakeMessage, FakeSlack } from "../../../tools/fake-slack/index.ts";
import type { Manifest } from "../../../tools/upgrade-fixture/workspace.ts";
import { type ChildStore, freshDatabase } from "./stores.ts";

export const FIXTURES = fileURLToPath(new URL("../fixtures/upgrade/", import.meta.url));
export const VARIANTS = ["pglite-sigterm", "pglite-sigkill", "postgres-sigterm", "postgres-sigkill"] as const;
export type Variant = (typeof VARIANTS)[number];

export interface Fixture {
  variant: Variant;
  dir: string;
  manifest: Manifest;
}

export async function loadFixture(variant: Variant): Promise<Fixture> {
  const dir = join(FIXTURES, variant);
  const manifest = JSON.parse(await readFile(join(dir, "manifest.json"), "utf8")) as Manifest;
  return { variant, dir, manifest };
}

/**
 * How long a test of this fixture may take: `runMs`, plus the wait until its last reminder or expiry is due
 * when it was built minutes ago (its due times are the previous release's clock's, kept across the upgrade).
 */
export function timeoutFor(variant: Variant, runMs: number): number {
  const manifest = JSON.parse(readFileSync(join(FIXTURES, variant, "manifest.json"), "utf8")) as Manifest;
  const due = [
    ...manifest.remindersDue.map((r) => r.remindAt),
    ...manifest.expiriesDue.map((x) => x.expireAt),
  ];
  const last = Math.max(...due.map((iso) => Date.parse(iso)).filter((t) => t < Date.now() + 3_600_000));
  return runMs + Math.max(0, last - Date.now());
}

/** The fixture's store, restored where the current app can open it: `env` names it for `order-desk start`. */
export async function restoreStore(fixture: Fixture): Promise<ChildStore & { url: string | null }> {
  const file = join(fixture.dir, fixture.manifest.files.store);
  if (fixture.manifest.store === "pglite") {
    const root = await mkdtemp(join(tmpdir(), "od-upgrade-pglite-"));
    const dataDir = join(root, "data");
    await mkdir(dataDir);
    execFileSync("tar", ["-xzf", file, "-C", dataDir]);
    return {
      url: null,
      env: { ORDER_DESK_DATA_DIR: dataDir },
      cleanup: () => rm(root, { recursive: true, force: true }),
    };
  }
  const database = await freshDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    // A plain pg_dump with INSERTs: one simple-protocol query runs it whole, less psql's meta-commands (recent
    // pg_dump releases wrap the dump in \restrict … \unrestrict, which only psql understands).
    const dump = (await readFile(file, "utf8")).replace(/^\\(un)?restrict .*$/gm, "");
    await client.query(dump);
  } finally {
    await client.end();
  }
  return database;
}

/** The sandbox's tables as the fixture left them, loaded into `db` (any SQL database the sandbox can use). */
export async function restoreSandbox(fixture: Fixture, db: SandboxDatabase): Promise<void> {
  const tables = JSON.parse(
    await readFile(join(fixture.dir, fixture.manifest.files.sandbox), "utf8"),
  ) as Record<string, unknown[]>;
  await db.query(SANDBOX_SCHEMA_SQL);
  // In the order of their foreign keys.
  for (const table of ["sandbox_orders", "sandbox_events", "sandbox_deliveries"]) {
    await db.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(null::${table}, $1::json)`, [
      JSON.stringify(tables[table] ?? []),
    ]);
  }
}

interface SlackExport {
  channel: { id: string; isIm: boolean; user: string | null };
  messages: FakeMessage[];
}

/** The fixture's Slack messages (channels, threads, DMs, alerts), put back into a fresh fake workspace. */
export async function restoreSlack(fixture: Fixture, fake: FakeSlack): Promise<void> {
  const exported = JSON.parse(
    await readFile(join(fixture.dir, fixture.manifest.files.slack), "utf8"),
  ) as SlackExport[];
  for (const { channel, messages } of exported) {
    if (channel.isIm && channel.user) fake.workspace.imWith(channel.user);
    else if (!fake.workspace.channels.has(channel.id)) fake.addChannel({ id: channel.id });
    fake.workspace.messages.get(channel.id)?.push(...messages);
  }
}

/** Every supplier event id in the message metadata of this thread (Order Desk's updates carry theirs). */
export function eventIdsIn(messages: readonly FakeMessage[]): string[] {
  return messages.flatMap((m) => {
    const id = (m.metadata as { event_payload?: { event_id?: unknown } } | undefined)?.event_payload
      ?.event_id;
    return typeof id === "string" ? [id] : [];
  });
}
