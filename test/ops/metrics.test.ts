import { describe, expect, it } from "vitest";
import { createMetrics } from "../../src/metrics.ts";
import { VERSION } from "../../src/version.ts";
import { parsePrometheusText, sampleValue } from "./prometheus.ts";

const OUR_METRICS = {
  order_desk_orders_placed_total: "counter",
  order_desk_orders_rejected_total: "counter",
  order_desk_orders_failed_total: "counter",
  order_desk_supplier_request_seconds: "histogram",
  order_desk_supplier_retries_total: "counter",
  order_desk_webhook_events_total: "counter",
  order_desk_webhook_duplicates_total: "counter",
  order_desk_webhook_rejected_total: "counter",
  order_desk_slack_posts_total: "counter",
  order_desk_slack_rate_limited_total: "counter",
  order_desk_queue_depth: "gauge",
  order_desk_queue_oldest_job_age_seconds: "gauge",
};

describe("the metrics registry", () => {
  it("renders Prometheus text in which every line is a comment or a `name{labels} value` sample", async () => {
    const metrics = createMetrics();
    metrics.ordersPlaced.inc({ source: "command" });
    metrics.ordersRejected.inc({ reason: 'VALIDATION_FAILED "quoted"\\ and\nnewline' });
    metrics.supplierLatency.observe({ outcome: "placed" }, 0.12);
    metrics.queueDepth.set({ queue: "place-order" }, 3);
    const text = await metrics.registry.metrics();

    const exposition = parsePrometheusText(text);
    expect(exposition.samples.length).toBeGreaterThan(50);
    // The default process metrics keep their stock names (no prefix), so Node.js dashboards find them.
    expect(exposition.samples.some((s) => s.name === "process_cpu_user_seconds_total")).toBe(true);
    expect(exposition.samples.some((s) => s.name.startsWith("order_desk_process_"))).toBe(false);
    expect(metrics.registry.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it("declares each Order Desk metric with its HELP and TYPE", async () => {
    const exposition = parsePrometheusText(await createMetrics({ defaultMetrics: false }).registry.metrics());
    for (const [name, type] of Object.entries(OUR_METRICS)) {
      expect(exposition.types.get(name), name).toBe(type);
      expect(exposition.help.get(name), name).toMatch(/\S/);
    }
  });

  it("names the Order Desk and Node.js versions in order_desk_build_info, always 1", async () => {
    const e = parsePrometheusText(await createMetrics({ defaultMetrics: false }).registry.metrics());
    expect(e.types.get("order_desk_build_info")).toBe("gauge");
    expect(sampleValue(e, "order_desk_build_info", { version: VERSION, node: process.version })).toBe(1);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("shows each known label set of a counter at 0 before anything happened", async () => {
    const e = parsePrometheusText(await createMetrics({ defaultMetrics: false }).registry.metrics());
    for (const source of ["command", "shortcut", "workflow", "cli"]) {
      expect(sampleValue(e, "order_desk_orders_placed_total", { source }), source).toBe(0);
    }
    expect(sampleValue(e, "order_desk_orders_rejected_total", { reason: "VALIDATION_FAILED" })).toBe(0);
    expect(sampleValue(e, "order_desk_webhook_events_total", { type: "order.shipping_updated" })).toBe(0);
    expect(sampleValue(e, "order_desk_webhook_rejected_total", { reason: "bad_signature" })).toBe(0);
    expect(sampleValue(e, "order_desk_slack_posts_total", { method: "chat.update" })).toBe(0);
    expect(sampleValue(e, "order_desk_slack_rate_limited_total", { method: "chat.postMessage" })).toBe(0);
  });

  it("counts what happened, by label", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.ordersPlaced.inc({ source: "command" });
    metrics.ordersPlaced.inc({ source: "command" });
    metrics.ordersPlaced.inc({ source: "workflow" });
    metrics.ordersFailed.inc({ reason: "SUPPLIER_UNAVAILABLE" });
    metrics.webhookRejected.inc({ reason: "bad_signature" });
    metrics.webhookDuplicates.inc();
    metrics.slackRateLimited.inc({ method: "chat.update" });
    metrics.supplierLatency.observe({ outcome: "placed" }, 0.04);
    metrics.supplierLatency.observe({ outcome: "placed" }, 3);
    metrics.oldestJobAgeSeconds.set({ queue: "post-update" }, 42);

    const e = parsePrometheusText(await metrics.registry.metrics());
    expect(sampleValue(e, "order_desk_orders_placed_total", { source: "command" })).toBe(2);
    expect(sampleValue(e, "order_desk_orders_placed_total", { source: "workflow" })).toBe(1);
    expect(sampleValue(e, "order_desk_orders_failed_total", { reason: "SUPPLIER_UNAVAILABLE" })).toBe(1);
    expect(sampleValue(e, "order_desk_webhook_rejected_total", { reason: "bad_signature" })).toBe(1);
    expect(sampleValue(e, "order_desk_webhook_duplicates_total")).toBe(1);
    expect(sampleValue(e, "order_desk_slack_rate_limited_total", { method: "chat.update" })).toBe(1);
    expect(sampleValue(e, "order_desk_supplier_request_seconds_count", { outcome: "placed" })).toBe(2);
    expect(
      sampleValue(e, "order_desk_supplier_request_seconds_bucket", { outcome: "placed", le: "0.05" }),
    ).toBe(1);
    expect(
      sampleValue(e, "order_desk_supplier_request_seconds_bucket", { outcome: "placed", le: "+Inf" }),
    ).toBe(2);
    expect(sampleValue(e, "order_desk_queue_oldest_job_age_seconds", { queue: "post-update" })).toBe(42);
  });

  it("keeps each registry's counts apart, so apps built side by side do not mix", async () => {
    const a = createMetrics({ defaultMetrics: false });
    const b = createMetrics({ defaultMetrics: false });
    a.supplierRetries.inc(5);
    const eb = parsePrometheusText(await b.registry.metrics());
    expect(sampleValue(eb, "order_desk_supplier_retries_total")).toBe(0);
  });
});

describe("the Prometheus text reader used by these tests", () => {
  it("refuses lines that are not samples", () => {
    expect(() => parsePrometheusText("order_desk_x 1\n\nnot a sample\n")).toThrow(/line 3/);
    expect(() => parsePrometheusText('x{a="1"} one\n')).toThrow(/not a sample/);
    expect(() => parsePrometheusText("x{a=1} 1\n")).toThrow(/not a sample/);
  });
});
