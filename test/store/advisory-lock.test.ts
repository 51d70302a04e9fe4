/**
 * Advisory locks are database-wide in PostgreSQL. A lock named `{ perSchema }` is one per schema, so deployments
 * (and parallel test files) that share a database in schemas of their own never take each other's: the orphan
 * report lock once made one schema's sweep skip its report while another schema's sweep held it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTryAdvisoryLock } from "../../src/store/advisory-lock.ts";
import type { Store } from "../../src/store/db.ts";
import { openTestStore, TEST_BACKENDS } from "../helpers/db.ts";

const NAMESPACE = 0x7465_7374;

// PostgreSQL only: the embedded store has no advisory locks shared between processes to speak of.
describe.skipIf(!TEST_BACKENDS.includes("postgres"))("advisory locks on PostgreSQL", () => {
  let a: Store;
  let b: Store;
  beforeAll(async () => {
    [a, b] = await Promise.all([openTestStore("postgres"), openTestStore("postgres")]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  /** Runs `inner` while `store` holds `key`; returns whether `inner` got its lock. */
  async function whileHeld(
    store: Store,
    key: Parameters<typeof withTryAdvisoryLock>[2],
    inner: () => Promise<boolean>,
  ) {
    const outer = await withTryAdvisoryLock(store, NAMESPACE, key, inner);
    expect(outer.acquired).toBe(true);
    return outer.acquired ? outer.value : false;
  }

  const tryLock = (store: Store, key: Parameters<typeof withTryAdvisoryLock>[2]) => async () =>
    (await withTryAdvisoryLock(store, NAMESPACE, key, async () => true)).acquired;

  it("gives each schema its own lock by a per-schema name", async () => {
    const key = { perSchema: `report-${Math.random()}` };
    expect(await whileHeld(a, key, tryLock(b, key))).toBe(true);
  });

  it("refuses the same per-schema lock to a second holder in the same schema", async () => {
    const key = { perSchema: `report-${Math.random()}` };
    expect(await whileHeld(a, key, tryLock(a, key))).toBe(false);
  });

  it("shares a lock by id across schemas, as PostgreSQL does", async () => {
    const key = `order-${Math.random()}`;
    expect(await whileHeld(a, key, tryLock(b, key))).toBe(false);
  });
});
