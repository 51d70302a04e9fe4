import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/db.ts";
import {
  QueryOutsideTransactionError,
  StoreClosedError,
  TransactionFinishedError,
} from "../../src/store/errors.ts";
import { getTestStore, openTestStore, TEST_BACKENDS } from "../helpers/db.ts";

describe.each(TEST_BACKENDS)("store on %s", (backend) => {
  let store: Store;

  beforeAll(async () => {
    store = await getTestStore(backend);
    await store.query("CREATE TABLE IF NOT EXISTS kv (k text PRIMARY KEY, v jsonb)");
  });

  it("reports its backend and parses timestamps, jsonb and bigint like node-postgres", async () => {
    expect(store.kind).toBe(backend);
    const { rows } = await store.query(
      `SELECT now() AS at, '{"a":[1,2]}'::jsonb AS doc, 9007199254740993::bigint AS big, 1::int AS small`,
    );
    expect(rows[0]?.at).toBeInstanceOf(Date);
    expect(rows[0]?.doc).toEqual({ a: [1, 2] });
    expect(rows[0]?.big).toBe("9007199254740993");
    expect(rows[0]?.small).toBe(1);
  });

  it("commits a transaction and runs its after-commit hooks once it has committed", async () => {
    const seen: string[] = [];
    const result = await store.transaction(async (tx) => {
      await tx.query("INSERT INTO kv (k, v) VALUES ($1, $2)", ["committed", JSON.stringify({ n: 1 })]);
      tx.afterCommit(() => seen.push("hook"));
      expect(seen).toEqual([]);
      return "done";
    });
    expect(result).toBe("done");
    expect(seen).toEqual(["hook"]);
    const { rows } = await store.query("SELECT v FROM kv WHERE k = $1", ["committed"]);
    expect(rows[0]?.v).toEqual({ n: 1 });
  });

  it("rolls back everything when the callback throws, and skips the after-commit hooks", async () => {
    const seen: string[] = [];
    await expect(
      store.transaction(async (tx) => {
        await tx.query("INSERT INTO kv (k) VALUES ($1)", ["rolled-back"]);
        tx.afterCommit(() => seen.push("hook"));
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(seen).toEqual([]);
    const { rowCount } = await store.query("SELECT 1 FROM kv WHERE k = $1", ["rolled-back"]);
    expect(rowCount).toBe(0);
    // The connection is usable again (on PGlite it is the only one).
    expect((await store.query("SELECT 1 AS one")).rows[0]?.one).toBe(1);
  });

  it("rolls back after a failed statement and keeps the pool usable", async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.query("INSERT INTO kv (k) VALUES ($1)", ["dup"]);
        await tx.query("INSERT INTO kv (k) VALUES ($1)", ["dup"]);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect((await store.query("SELECT count(*)::int AS n FROM kv WHERE k = 'dup'")).rows[0]?.n).toBe(0);
  });

  it("keeps answering in order after a failed statement outside a transaction", async () => {
    await store.query("INSERT INTO kv (k) VALUES ($1) ON CONFLICT DO NOTHING", ["once"]);
    for (let i = 0; i < 3; i++) {
      await expect(store.query("INSERT INTO kv (k) VALUES ($1)", ["once"])).rejects.toMatchObject({
        code: "23505",
      });
      await expect(store.query("SELECT 1 / $1::int AS x", [0])).rejects.toMatchObject({ code: "22012" });
      expect((await store.query("SELECT $1::int AS n", [i])).rows).toEqual([{ n: i }]);
      // Several statements without parameters: the last one's result.
      expect((await store.query("SELECT 1 AS a; SELECT 2 AS b")).rows).toEqual([{ b: 2 }]);
    }
  });

  it("prepares a parameterised statement once and re-prepares it when a migration changes its columns", async () => {
    await store.query("CREATE TABLE IF NOT EXISTS widened (id int PRIMARY KEY)");
    await store.query("INSERT INTO widened (id) VALUES ($1) ON CONFLICT DO NOTHING", [1]);
    const read = () => store.query("SELECT * FROM widened WHERE id = $1", [1]);
    expect((await read()).rows).toEqual([{ id: 1 }]);
    expect((await read()).rows).toEqual([{ id: 1 }]);
    // As a newer replica's migration would, from outside the statement's connection when there is one.
    await store.query("ALTER TABLE widened ADD COLUMN IF NOT EXISTS note text DEFAULT 'new'");
    expect((await read()).rows).toEqual([{ id: 1, note: "new" }]);
    await store.query("DROP TABLE widened");
  });

  it("with guardTransactions (every test store), refuses store.query inside a transaction callback instead of deadlocking", async () => {
    await expect(
      store.transaction(async () => {
        await store.query("SELECT 1");
      }),
    ).rejects.toBeInstanceOf(QueryOutsideTransactionError);
    await expect(store.transaction(() => store.transaction(async () => 1))).rejects.toBeInstanceOf(
      QueryOutsideTransactionError,
    );
  });

  it("refuses a transaction's tx once the transaction has finished", async () => {
    let kept: { query(text: string): Promise<unknown> } | null = null;
    await store.transaction(async (tx) => {
      kept = tx;
    });
    await expect(kept!.query("SELECT 1")).rejects.toBeInstanceOf(TransactionFinishedError);
  });

  it("serialises concurrent transactions without losing updates", async () => {
    await store.query("INSERT INTO kv (k, v) VALUES ('counter', '0') ON CONFLICT (k) DO UPDATE SET v = '0'");
    await Promise.all(
      Array.from({ length: 8 }, () =>
        store.transaction(async (tx) => {
          const { rows } = await tx.query("SELECT v FROM kv WHERE k = 'counter' FOR UPDATE");
          await tx.query("UPDATE kv SET v = $1 WHERE k = 'counter'", [
            JSON.stringify(Number(rows[0]?.v) + 1),
          ]);
        }),
      ),
    );
    expect((await store.query("SELECT v FROM kv WHERE k = 'counter'")).rows[0]?.v).toBe(8);
  });

  describe("closing", () => {
    let own: Store;
    beforeAll(async () => {
      own = await openTestStore(backend);
    });
    afterAll(() => own.close());

    it("is idempotent and makes later queries fail clearly", async () => {
      await Promise.all([own.close(), own.close()]);
      await expect(own.query("SELECT 1")).rejects.toBeInstanceOf(StoreClosedError);
    });
  });
});

describe("embedded store", () => {
  it("does not zero-fill new WAL segments (a COMMIT would stall on the Node thread while it does)", async () => {
    const store = await getTestStore("pglite");
    const { rows } = await store.query("SHOW wal_init_zero");
    expect(rows[0]?.wal_init_zero).toBe("off");
  });
});
