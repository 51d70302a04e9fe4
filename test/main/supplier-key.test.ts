/**
 * The Secrets Manager path as an operator meets it, through the real AWS SDK against the fake Secrets Manager,
 * Order Desk's composition root, the fake Slack and the sandbox supplier:
 * - `/readyz` says not ready, with the reason's code only, while the supplier key's secret cannot be read;
 * - the order message agents see says in plain words that the key could not be read, while the admin alert
 *   carries the details (secret id, what to check);
 * - during a rotation's grace period a key the supplier refused is not sent again on every order, until the
 *   secret holds another key.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderDesk } from "../../src/main.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { EXAMPLE_DELIVERY } from "../../tools/example-form.ts";
import { SECRET_ID, startWorld, type World } from "../../tools/world.ts";

const HELPDESK = "C0HELPDESK";
const ADMIN = "C0ITADMIN";
const AGENT = "U0AGENT01";

/** Every placement call the supplier saw: which key and what it answered. */
interface Seen {
  key: string;
  status: number;
}

/** A pass-through in front of the sandbox that records the key and status of each `POST /orders/create`. */
async function recordingProxy(
  target: string,
  seen: Seen[],
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const upstream = httpRequest(
      new URL(req.url ?? "/", target),
      { method: req.method, headers: req.headers },
      (answer) => {
        if (req.url?.startsWith("/orders/create")) {
          seen.push({ key: String(req.headers["x-api-key"] ?? ""), status: answer.statusCode ?? 0 });
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the supplier key from Secrets Manager", () => {
  let world: World;
  let desk: OrderDesk;
  const seen: Seen[] = [];

  beforeAll(async () => {
    world = await startWorld({
      speed: 2000,
      seed: "supplier-key",
      extraKeys: 1,
      inFrontOfSandbox: (url) => recordingProxy(url, seen),
      slack: {
        users: [{ id: AGENT, name: "alice", realName: "Alice Agent" }],
        channels: [
          { id: HELPDESK, name: "helpdesk" },
          { id: ADMIN, name: "it-admin" },
        ],
      },
      // The shortest cache the configuration allows, so a changed secret is read within a test.
      env: { SECRETS_CACHE_TTL_MS: "1000", WEBHOOK_SETTLE_MS: "100" },
    });
    // The secret is gone when Order Desk starts.
    world.secretsManager.deleteSecret(SECRET_ID);
    desk = await world.startDesk({ logger: pino({ level: "silent" }) });
  }, 60_000);

  afterAll(async () => {
    await world?.close();
  });

  async function order(ticket: string): Promise<void> {
    const alice = world.user(AGENT);
    const { triggerId } = await alice.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
    const view = await alice.openedModal(triggerId);
    const submitted = await alice.submit(view.id, { profile: "Acme EU", ...EXAMPLE_DELIVERY });
    expect(submitted.outcome.outcome).toBe("closed");
  }

  /** Resolves once the supplier accepted the order for `ticket` (it has a correlation id). */
  async function placed(ticket: string): Promise<void> {
    await waitFor(`${ticket} placed`, async () => {
      const { rows } = await desk.store.query(
        "SELECT correlation_id FROM orders WHERE customer_reference = $1 AND correlation_id IS NOT NULL",
        [ticket],
      );
      return rows.length > 0 ? true : undefined;
    });
  }

  /** The latest version of the order message for `ticket`, as JSON. */
  function orderMessage(ticket: string): string | undefined {
    for (const message of world.fake.topLevel(HELPDESK)) {
      const latest = JSON.stringify(message.versions.at(-1));
      if (latest.includes(ticket)) return latest;
    }
    return undefined;
  }

  it("is not ready while the secret cannot be read, says why without details, and is ready once it can", async () => {
    const publicReady = await fetch(`${desk.url}/readyz`);
    expect(publicReady.status).toBe(503);
    const detailed = await fetch(`${desk.opsUrl}/readyz`);
    expect(detailed.status).toBe(503);
    const body = (await detailed.json()) as { checks: Record<string, { ok: boolean; error?: string }> };
    expect(body.checks.supplierKey).toMatchObject({ ok: false, error: "SECRET_NOT_FOUND" });
    expect(body.checks.store).toMatchObject({ ok: true });
    expect(JSON.stringify(body)).not.toContain(SECRET_ID);
  });

  it("tells the agent plainly that the key could not be read, and the admins the details", async () => {
    await order("KEY-1");
    const shown = await waitFor("the order message to say the key could not be read", async () => {
      const message = orderMessage("KEY-1");
      return message?.includes("could not be read") ? message : undefined;
    });
    expect(shown).toContain("The supplier key could not be read; the admins have been told.");
    for (const detail of [
      SECRET_ID,
      world.secretsManager.region,
      "SUPPLIER_API_KEY",
      "AWS_REGION",
      "Secrets Manager",
    ]) {
      expect(shown).not.toContain(detail);
    }
    const alert = await waitFor("the admin alert", async () => {
      const text = JSON.stringify(world.fake.topLevel(ADMIN));
      return text.includes("could not be read") ? text : undefined;
    });
    expect(alert).toContain(SECRET_ID);
    expect(alert).toContain("was not found");
    expect(seen).toHaveLength(0);

    // The secret is back: ready again once the cache's backoff lets it read the secret.
    world.secretsManager.putSecretValue(SECRET_ID, world.keys[0] as string);
    await waitFor("/readyz to answer 200", async () =>
      (await fetch(`${desk.opsUrl}/readyz`)).status === 200 ? true : undefined,
    );
  }, 60_000);

  it("sends a key the supplier refused once, not on every order, until the secret changes", async () => {
    await order("KEY-2");
    await placed("KEY-2");
    // A rotation whose new key the supplier does not accept yet: the old one is AWSPREVIOUS and still works.
    const notYetActive = generateTestKey();
    world.secretsManager.putSecretValue(SECRET_ID, notYetActive);
    await new Promise((r) => setTimeout(r, 1_100)); // past the 1 s key cache: the next order reads the new key
    seen.length = 0;
    for (const ticket of ["KEY-3", "KEY-4", "KEY-5"]) {
      await order(ticket);
      await placed(ticket);
    }
    const refusals = seen.filter((s) => s.key === notYetActive);
    expect(refusals).toEqual([{ key: notYetActive, status: 401 }]);
    expect(seen.filter((s) => s.key === world.keys[0])).toHaveLength(3);

    // The secret changes to a key the supplier accepts: it is used at once, without another refusal.
    const fixed = world.keys[1] as string;
    world.secretsManager.putSecretValue(SECRET_ID, fixed);
    await new Promise((r) => setTimeout(r, 1_100));
    seen.length = 0;
    await order("KEY-6");
    await placed("KEY-6");
    expect(seen).toEqual([{ key: fixed, status: 200 }]);
  }, 90_000);
});
