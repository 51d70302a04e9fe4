/**
 * What the operators' command line closes is shown in Slack (issue #35): after `order-desk jobs retry` resolves a
 * failed order's alert item, and after `order-desk events reprocess` resolves the items of shapes it could read,
 * the running Order Desk rewrites each alert with who (an admin from the command line), what and when, and its
 * buttons are gone. The commands run against the store of a running Order Desk (PostgreSQL: the commands refuse on
 * the embedded store), whose workers post to the fake Slack; the order goes through signed Slack requests.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEvents } from "../../src/cli/events.ts";
import { runJobs } from "../../src/cli/jobs.ts";
import type { OperationsIo } from "../../src/cli/operations.ts";
import { describeShape, hashBody } from "../../src/supplier/event-mapping.ts";
import { keepUnreadable, postOpenedAlert } from "../../src/webhooks/unreadable.ts";
import type { FakeMessage } from "../../tools/fake-slack/index.ts";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { ADMIN, type Harness, HELPDESK, startHarness, VALID_FORM } from "../slack/support/harness.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { failure, type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";

function capture(): OperationsIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d) => (out += d));
  return { stdout, stderr: { write: (chunk: string) => (err += chunk) }, out: () => out, err: () => err };
}

const json = (value: unknown) => JSON.stringify(value);
const latest = (m: FakeMessage | undefined) => m?.versions.at(-1);

/** The customer file with a mapping for the sandbox's second dialect (what `events reprocess` reads with). */
const dir = mkdtempSync(join(tmpdir(), "order-desk-cli-alerts-"));
const customerFile = join(dir, "order-desk.config.yml");
writeFileSync(
  customerFile,
  `${readFileSync("examples/order-desk.config.yml", "utf8")}\nsupplierEvents:\n  file: ${resolve("examples/supplier-events.alt.yml")}\n`,
);

describe.runIf(TEST_BACKENDS.includes("postgres"))("alerts closed from the command line", () => {
  let supplier: StubSupplier;
  let h: Harness;

  beforeAll(async () => {
    // The first placement fails for good (both attempts of its one run), the retried one is accepted.
    supplier = await startStubSupplier([
      failure(503, "SUPPLIER_UNAVAILABLE"),
      failure(503, "SUPPLIER_UNAVAILABLE"),
      success(),
    ]);
    h = await startHarness({ supplierUrl: supplier.baseUrl, apiKey: TEST_KEY, retryLimit: 0 });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  /** Waits until the alert's latest text has `words`. */
  function rewritten(alert: FakeMessage, words: string): Promise<FakeMessage> {
    return h.fake.waitFor(
      () => {
        const m = h.fake.message(ADMIN, alert.ts);
        return (latest(m)?.text ?? "").includes(words) ? m : undefined;
      },
      { timeoutMs: 15_000, what: `the alert rewritten with "${words}"` },
    );
  }

  it("rewrites a failed order's alert after `jobs retry` (by an admin from the command line, when) and takes its buttons away", async () => {
    const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "CLI-21" });
    const view = await h.agent.openedModal(triggerId);
    const submitted = await h.agent.submit(view.id, { ...VALID_FORM, ticket: "CLI-21", profile: "Acme EU" });
    expect(submitted.outcome.outcome).toBe("closed");
    const failed = await h.waitForOrder(
      (o) => o.customerReference === "CLI-21" && o.status === "failed",
      "CLI-21 failed for good",
      20_000,
    );
    const alert = await h.fake.waitFor(
      () =>
        h.fake
          .topLevel(ADMIN)
          .find(
            (m) =>
              (latest(m)?.text ?? "").includes(failed.externalDocumentNumber) &&
              json(latest(m)?.blocks).includes("attention_retry_order"),
          ),
      { timeoutMs: 15_000, what: "the failed order's alert with Retry now" },
    );
    const failedJobs = capture();
    expect(await runJobs(["list", "--failed", "--json"], {}, failedJobs, { store: h.store })).toBe(0);
    const job = (JSON.parse(failedJobs.out()) as Array<{ id: string; data: { orderId?: string } }>).find(
      (j) => j.data.orderId === failed.id,
    );
    expect(job).toBeDefined();

    const io = capture();
    expect(await runJobs(["retry", job?.id ?? ""], {}, io, { store: h.store })).toBe(0);
    const shown = await rewritten(alert, "Retried by an admin from the command line");
    expect(latest(shown)?.text).toContain("`order-desk jobs retry`");
    expect(json(latest(shown)?.blocks)).toMatch(/<!date\^\d+\^/);
    expect(json(latest(shown)?.blocks)).not.toContain("attention_retry_order");
    expect(json(latest(shown)?.blocks)).not.toContain("attention_mark_handled");
    await h.waitForOrder((o) => o.id === failed.id && o.status === "received", "CLI-21 placed", 20_000);
    // Rewritten once: the job is not repeated.
    expect(
      h.fake.calls("chat.update").filter((c) => c.args.channel === ADMIN && c.args.ts === alert.ts),
    ).toHaveLength(1);
  }, 60_000);

  it("rewrites the alert about unreadable deliveries once `events reprocess` could read them all", async () => {
    const body = {
      eventId: `evt_${randomUUID().replaceAll("-", "")}`,
      eventType: "ORDER_STATUS",
      createdAt: Date.now(),
      order: { correlationId: randomUUID(), documentNumber: "NOBODY-1" },
      status: { code: "RECEIVED" },
    };
    const raw = Buffer.from(JSON.stringify(body));
    const kept = await keepUnreadable(
      { store: h.store },
      {
        eventId: body.eventId,
        reason: "written before the mapping was corrected",
        bodyHash: hashBody(raw),
        body: raw,
        delivery: { scheme: "hmac-sha256", deliveryId: body.eventId },
        shape: describeShape(body),
        receivedAt: new Date(),
      },
    );
    expect(kept.opened).not.toBeNull();
    if (kept.opened)
      await postOpenedAlert({ store: h.store, alerts: h.slack.context.operators.alerts }, kept.opened);
    const alert = await h.fake.waitFor(
      () =>
        h.fake.topLevel(ADMIN).find((m) => json(latest(m)?.blocks).includes(`"value":"${kept.opened?.id}"`)),
      { what: "the unreadable deliveries' alert with Reprocess" },
    );
    expect(json(latest(alert)?.blocks)).toContain("attention_reprocess_events");

    const io = capture();
    expect(await runEvents(["reprocess"], { ORDER_DESK_CONFIG: customerFile }, io, { store: h.store })).toBe(
      0,
    );
    expect(io.out()).toContain("1 alert closed as reprocessed");
    const shown = await rewritten(alert, "Reprocessed by an admin from the command line");
    expect(latest(shown)?.text).toContain("`order-desk events reprocess`");
    expect(json(latest(shown)?.blocks)).not.toContain("attention_reprocess_events");
  }, 60_000);
});
