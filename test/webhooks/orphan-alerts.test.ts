/**
 * Orphan events are marked reported only once the admin alert went out: an alert Slack refused is sent by the
 * next sweep, and once sent it is never sent again (also when two sweepers run at once).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminAlert } from "../../src/orders/ports.ts";
import { renderAdminAlert } from "../../src/slack/notifier.ts";
import type { Store } from "../../src/store/db.ts";
import { openStore } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { createOrphanSweeper } from "../../src/webhooks/orphans.ts";
import { defaultBackend, getTestStore } from "../helpers/db.ts";
import { capturedLogger } from "../secrets/helpers.ts";
import { ADMIN_CHANNEL, deliver, type Harness, startHarness, statusEvent } from "./support.ts";

let store: Store;
let h: Harness;

beforeAll(async () => {
  store = await getTestStore();
  h = await startHarness(store);
});
afterAll(async () => {
  await h?.close();
});

/** Posts the alert to the admin channel of the fake Slack, as the app's notifier does. */
async function alertAdmins(alert: AdminAlert): Promise<void> {
  await h.slack.postMessage({ channel: ADMIN_CHANNEL, ...renderAdminAlert(alert) });
}

const adminMessagesAbout = (correlationId: string) =>
  h.fake.messages(ADMIN_CHANNEL).filter((m) => m.text?.includes(correlationId));

/** One sweeper per store runs at the same moment over one orphan: exactly one of them reports it, once. */
async function expectOneAlertFromSweepsAtOnce(stores: Store[]): Promise<void> {
  const orphan = await storeOrphan();
  const sweepers = stores.map((s) =>
    createOrphanSweeper({
      store: s,
      jobs: h.jobs,
      orphanAfterMs: 0,
      now: () => Date.now() + 1_000,
      alertAdmins,
    }),
  );
  // Slow Slack: every sweep finds the orphan unreported while the first alert is in flight.
  h.fake.setLatency(200, "chat.postMessage");
  try {
    const results = await Promise.all(sweepers.map((s) => s.runOnce()));
    expect(results.map((r) => r.reported).sort()).toEqual([0, 1]);
  } finally {
    h.fake.clearFaults();
  }
  expect(adminMessagesAbout(orphan.correlationId)).toHaveLength(1);
}

async function storeOrphan(): Promise<{ id: string; correlationId: string }> {
  const event = statusEvent(randomUUID(), "received", new Date().toISOString(), {
    externalDocumentNumber: "OD-ELSEWHERE",
  });
  expect((await deliver(h.url, event)).status).toBe(202);
  return { id: event.id, correlationId: event.correlationId };
}

describe("reporting orphan events to the admins", () => {
  it("retries an alert Slack refused at the next sweep, then never sends it again", async () => {
    const orphan = await storeOrphan();
    const log = capturedLogger();
    const sweeper = createOrphanSweeper({
      store,
      jobs: h.jobs,
      orphanAfterMs: 0,
      now: () => Date.now() + 1_000,
      alertAdmins,
      logger: log.logger,
    });

    h.fake.failNext("chat.postMessage", "channel_not_found");
    const failed = await sweeper.runOnce();
    expect(failed.reported).toBe(0);
    expect(adminMessagesAbout(orphan.correlationId)).toHaveLength(0);
    expect((await getEvent(store, orphan.id))?.orphanReportedAt).toBeNull();
    expect(log.lines().find((l) => l.correlationId === orphan.correlationId)).toMatchObject({
      level: 50,
      msg: expect.stringContaining("the next sweep tries again"),
    });

    const sent = await sweeper.runOnce();
    expect(sent.reported).toBe(1);
    const [message] = adminMessagesAbout(orphan.correlationId);
    expect(message?.text).toContain("OD-ELSEWHERE");
    expect((await getEvent(store, orphan.id))?.orphanReportedAt).toBeInstanceOf(Date);

    expect((await sweeper.runOnce()).reported).toBe(0);
    expect(adminMessagesAbout(orphan.correlationId)).toHaveLength(1);
  });

  it("keeps retrying while Slack answers with errors, and reports once it recovers", async () => {
    const orphan = await storeOrphan();
    const sweeper = createOrphanSweeper({
      store,
      jobs: h.jobs,
      orphanAfterMs: 0,
      now: () => Date.now() + 1_000,
      alertAdmins,
    });
    h.fake.failNext("chat.postMessage", { httpStatus: 503, body: "upstream unavailable" }, 2);
    expect((await sweeper.runOnce()).reported).toBe(0);
    expect((await sweeper.runOnce()).reported).toBe(0);
    expect((await getEvent(store, orphan.id))?.orphanReportedAt).toBeNull();
    expect((await sweeper.runOnce()).reported).toBe(1);
    expect(adminMessagesAbout(orphan.correlationId)).toHaveLength(1);
    expect((await getEvent(store, orphan.id))?.orphanReportedAt).toBeInstanceOf(Date);
  });

  it("alerts once when two sweepers report at the same time", async () => {
    await expectOneAlertFromSweepsAtOnce([store, store]);
  });

  // Only on PostgreSQL: two replicas need a shared server (the embedded store is one process). CI sets
  // DATABASE_URL, so it runs there; locally it is skipped without it.
  it.runIf(defaultBackend() === "postgres")(
    "alerts once when two replicas sweep the same PostgreSQL at the same time",
    async () => {
      // A second connection pool on the same schema stands in for another replica.
      const replica = await openStore({
        databaseUrl: store.connectionString ?? "",
        ...(store.schema ? { schema: store.schema } : {}),
        migrate: false,
      });
      try {
        await expectOneAlertFromSweepsAtOnce([store, replica]);
      } finally {
        await replica.close();
      }
    },
  );
});
