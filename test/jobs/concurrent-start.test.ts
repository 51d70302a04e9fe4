import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { TEST_BACKENDS, testDatabaseUrl, uniqueSchemaName } from "../helpers/db.ts";

const CHILD = fileURLToPath(new URL("./fixtures/start-child.ts", import.meta.url));
const REPLICAS = 4;

function startReplica(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

// Replicas share one PostgreSQL; the embedded store is one process by design (its lock file refuses a second).
describe.skipIf(!TEST_BACKENDS.includes("postgres"))("replicas started together, on postgres", () => {
  it("all become ready on an empty database: migrations and the job queue's install run once, under one lock", async () => {
    const client = new pg.Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    // The empty schema stands for a new database's `public`; pg-boss installs its own schema beside it.
    const schema = uniqueSchemaName();
    await client.query(`CREATE SCHEMA ${schema}`);
    try {
      const env = { START_DATABASE_URL: testDatabaseUrl(), START_SCHEMA: schema };
      const runs = await Promise.all(Array.from({ length: REPLICAS }, () => startReplica(env)));
      for (const run of runs) {
        expect(run.output).toContain("READY");
        expect(run.code).toBe(0);
      }
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${schema}_jobs.queue`,
      );
      expect(rows[0]?.n).toBeGreaterThan(0);
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
      await client.end();
    }
  });
});
