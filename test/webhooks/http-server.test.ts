import { Agent, request as httpRequest } from "node:http";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createReadiness, healthRoutes } from "../../src/http/health.ts";
import { sendJson } from "../../src/http/json.ts";
import { type HttpServer, RouteConflictError, startHttpServer } from "../../src/http/server.ts";

let server: HttpServer | null = null;
/** A second listener (the operations one) when a test needs it. */
let ops: HttpServer | null = null;
afterEach(async () => {
  await server?.close({ graceMs: 1000 });
  await ops?.close({ graceMs: 1000 });
  server = null;
  ops = null;
});

describe("the app's HTTP server", () => {
  it("serves exact and prefix routes, and answers unknown paths and methods in JSON", async () => {
    server = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      routes: [
        { path: "/exact", methods: ["GET"], handler: (_req, res) => sendJson(res, 200, { route: "exact" }) },
        { path: "/slack/*", handler: (req, res) => sendJson(res, 200, { route: "slack", url: req.url }) },
      ],
    });
    // Mounted later, as the lead mounts Bolt's receiver and /metrics once they exist.
    server.addRoute({
      path: "/slack/events/*",
      handler: (_req, res) => sendJson(res, 200, { route: "events" }),
    });

    expect(await (await fetch(`${server.url}/exact?x=1`)).json()).toEqual({ route: "exact" });
    expect(await (await fetch(`${server.url}/slack/commands`)).json()).toEqual({
      route: "slack",
      url: "/slack/commands",
    });
    expect(await (await fetch(`${server.url}/slack/events/x`)).json()).toEqual({ route: "events" });

    const missing = await fetch(`${server.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ ok: false, error: "not_found" });

    const wrongMethod = await fetch(`${server.url}/exact`, { method: "POST", body: "{}" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
    expect(await wrongMethod.json()).toMatchObject({ error: "method_not_allowed" });
  });

  it("refuses to register the same path twice", async () => {
    server = await startHttpServer({ host: "127.0.0.1", port: 0 });
    const route = { path: "/metrics", handler: () => {} };
    server.addRoute(route);
    expect(() => server?.addRoute(route)).toThrow(RouteConflictError);
  });

  it("answers 500 in JSON when a handler throws, and keeps serving", async () => {
    server = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      routes: [
        {
          path: "/boom",
          handler: async () => {
            throw new Error("boom");
          },
        },
        ...healthRoutes({ checks: {} }),
      ],
    });
    const res = await fetch(`${server.url}/boom`);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ ok: false, error: "internal_error" });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("reports readiness from the injected checks: the status publicly, each check's result on the operations listener", async () => {
    let storeUp = true;
    const logged: string[] = [];
    const readiness = createReadiness({
      timeoutMs: 200,
      checks: {
        store: async () => {
          if (storeUp) return;
          // What pg says when the database is down: its address, which readiness output must not show.
          throw Object.assign(
            new Error("connect ECONNREFUSED 10.1.2.3:5432 (postgres://od@db.internal/od)"),
            {
              code: "ECONNREFUSED",
            },
          );
        },
        queue: async () => {
          if (!storeUp) throw new Error("relation pgboss.job at db.internal does not exist");
        },
      },
      logger: pino({ level: "info" }, { write: (line: string) => void logged.push(line) }),
    });
    server = await startHttpServer({ host: "127.0.0.1", port: 0, routes: healthRoutes(readiness) });
    ops = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      routes: healthRoutes(readiness, { details: true }),
    });
    const healthy = await fetch(`${server.url}/readyz`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toEqual({ ok: true, status: "ready" });
    expect(await (await fetch(`${ops.url}/readyz`)).json()).toMatchObject({
      ok: true,
      checks: { store: { ok: true }, queue: { ok: true } },
    });

    storeUp = false;
    const down = await fetch(`${server.url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ ok: false, status: "not_ready" });
    const detailed = await fetch(`${ops.url}/readyz`);
    expect(detailed.status).toBe(503);
    const body = await detailed.text();
    expect(JSON.parse(body)).toMatchObject({
      ok: false,
      status: "not_ready",
      checks: {
        store: { ok: false, error: "ECONNREFUSED" },
        queue: { ok: false, error: "failed (see the log)" },
      },
    });
    expect(body).not.toMatch(/10\.1\.2\.3|db\.internal|postgres:/);
    // The message is for the operator's log, once per outage however often the probe asks.
    await fetch(`${ops.url}/readyz`);
    expect(logged.filter((l) => l.includes("readiness check failing"))).toHaveLength(2);
    expect(logged.join("")).toContain("10.1.2.3:5432");
    storeUp = true;
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(logged.filter((l) => l.includes("readiness check passing again"))).toHaveLength(2);
    // Liveness does not depend on the store: a database outage must not get the process restarted.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("times out a check that hangs", async () => {
    server = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      routes: healthRoutes(
        { timeoutMs: 50, checks: { store: () => new Promise(() => {}) } },
        { details: true },
      ),
    });
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      checks: { store: { ok: false, error: "no answer within 50 ms" } },
    });
  });

  it("closes gracefully: a request in flight finishes, then keep-alive connections are closed", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let started!: () => void;
    const inFlight = new Promise<void>((r) => {
      started = r;
    });
    const s = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      routes: [
        {
          path: "/slow",
          handler: async (_req, res) => {
            started();
            await gate;
            sendJson(res, 200, { done: true });
          },
        },
      ],
    });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${s.url}/slow`, { agent: new Agent({ keepAlive: true }) }, (res) => {
        let body = "";
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
    await inFlight;
    const closed = s.close({ graceMs: 5000 });
    // New connections are refused once closing has begun.
    await expect(fetch(`${s.url}/slow`)).rejects.toThrow();
    release();
    expect(await answer).toEqual({ status: 200, body: '{"done":true}' });
    await closed;
  });
});
