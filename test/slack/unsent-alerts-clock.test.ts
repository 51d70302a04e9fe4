/**
 * An admin alert Slack did not take when its trouble was reported (the admin channel archived) goes out at the app's
 * next look for unsent alerts once it is older than the grace: a wait, measured by the clock that dated the alert
 * (the database's), whatever the app's clock says. Here the app's clock runs an hour behind, as the demo's world
 * clock may. Over the real wire (signed requests, the fake Slack Web API, a scripted supplier).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../webhooks/support.ts";
import { orphanEventsAlert } from "./support/alerts.ts";
import { ADMIN, type StubbedHarness, startOnStubSupplier } from "./support/harness.ts";

const HOUR = 3_600_000;

describe("admin alerts not posted when reported", () => {
  let h: StubbedHarness;

  beforeAll(async () => {
    h = await startOnStubSupplier([], {
      now: () => new Date(Date.now() - HOUR),
      unsentAlerts: { everyMs: 100, graceMs: 500 },
    });
    // The looks for unsent alerts run from here (main.ts starts the app the same way).
    await h.slack.start();
  });

  afterAll(() => h?.close());

  it("go out after the grace though the app's clock is an hour behind", async () => {
    const correlationId = randomUUID();
    const alert = orphanEventsAlert(correlationId);
    h.fake.setArchived(ADMIN, true);
    await expect(h.slack.notifier.alertAdmins(alert)).rejects.toThrow();
    h.fake.setArchived(ADMIN, false);
    const posted = () => h.fake.topLevel(ADMIN).filter((m) => m.text.includes(correlationId));
    await h.fake.waitFor(() => posted()[0], { timeoutMs: 10_000, what: "the alert posted by a later look" });
    expect(posted()).toHaveLength(1);
    // Recorded as posted: no later look takes it again.
    const recorded = await until(
      async () =>
        (
          await h.store.query(
            "SELECT alert_ts FROM attention_items WHERE kind = 'orphan_events' AND subject = $1",
            [correlationId],
          )
        ).rows,
      (rows) => rows[0]?.alert_ts != null,
      "the alert recorded as posted",
    );
    expect(recorded).toEqual([{ alert_ts: posted()[0]?.ts }]);
    expect(posted()).toHaveLength(1);
  });
});
