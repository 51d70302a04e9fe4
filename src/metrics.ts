import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { createApprovalMetrics, type PrometheusApprovalMetrics } from "./metrics-approvals.ts";
import { createDateMetrics, type DateMetrics } from "./metrics-dates.ts";
import { ORDER_SOURCES } from "./orders/model/order.ts";
import type { PlacementMetrics } from "./orders/ports.ts";
import { SHIPPING_UPDATED, STATUS_CHANGED } from "./supplier/events.ts";
import { buildInfo } from "./version.ts";
import { WEBHOOK_REJECTION_REASONS } from "./webhooks/errors.ts";

/**
 * The Prometheus metrics Order Desk exposes on `/metrics`. One registry per process (not the global
 * one) so tests can build several apps side by side without their counts mixing.
 */
export interface Metrics {
  registry: Registry;
  ordersPlaced: Counter<"source">;
  ordersRejected: Counter<"reason">;
  ordersFailed: Counter<"reason">;
  supplierLatency: Histogram<"outcome">;
  supplierRetries: Counter;
  webhookEvents: Counter<"type">;
  webhookDuplicates: Counter;
  webhookRejected: Counter<"reason">;
  slackPosts: Counter<"method">;
  slackRateLimited: Counter<"method">;
  slackSocketConnections: Gauge;
  slackSocketReconnects: Counter<"reason">;
  slackSocketConnectFailures: Counter<"error">;
  queueDepth: Gauge<"queue">;
  oldestJobAgeSeconds: Gauge<"queue">;
  /** Approvals requested, decided by outcome, time to decision (./metrics-approvals.ts). */
  approvals: PrometheusApprovalMetrics;
  /** Orders at risk and late deliveries (./metrics-dates.ts). */
  dates: DateMetrics;
  /** Orders the watchdog found stalled, by profile and condition (src/orders/watchdog/). */
  ordersStalled: Counter<"profile" | "condition">;
  /** `order_desk_build_info{version,node} 1`: which build each instance runs. */
  buildInfo: Gauge<"version" | "node">;
}

/**
 * The label values each counter is known to take, shown at 0 from the start: a dashboard's `rate()` and an
 * alert on `increase()` see a series before its first event, instead of "no data" until something goes wrong.
 */
const KNOWN_LABELS = {
  ordersPlaced: ORDER_SOURCES.map((source) => ({ source })),
  ordersRejected: ["VALIDATION_FAILED", "DUPLICATE_ORDER"].map((reason) => ({ reason })),
  webhookEvents: [STATUS_CHANGED, SHIPPING_UPDATED, "other"].map((type) => ({ type })),
  webhookRejected: WEBHOOK_REJECTION_REASONS.map((reason) => ({ reason })),
  slackPosts: ["chat.postMessage", "chat.update"].map((method) => ({ method })),
  slackRateLimited: ["chat.postMessage", "chat.update"].map((method) => ({ method })),
} as const;

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  // Without a prefix: Node.js's stock dashboards look for process_cpu_seconds_total, nodejs_heap_size_used_bytes…
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const metrics: Metrics = {
    registry,
    ordersPlaced: new Counter({
      name: "order_desk_orders_placed_total",
      help: "Orders the supplier accepted, by where they came from.",
      labelNames: ["source"],
      registers,
    }),
    ordersRejected: new Counter({
      name: "order_desk_orders_rejected_total",
      help: "Orders refused before or by the supplier, by reason (error code).",
      labelNames: ["reason"],
      registers,
    }),
    ordersFailed: new Counter({
      name: "order_desk_orders_failed_total",
      help: "Placement attempts that failed for a reason other than the order itself, by reason.",
      labelNames: ["reason"],
      registers,
    }),
    supplierLatency: new Histogram({
      name: "order_desk_supplier_request_seconds",
      help: "Latency of create-order calls to the supplier, by outcome.",
      labelNames: ["outcome"],
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers,
    }),
    supplierRetries: new Counter({
      name: "order_desk_supplier_retries_total",
      help: "Create-order attempts that were retried.",
      registers,
    }),
    webhookEvents: new Counter({
      name: "order_desk_webhook_events_total",
      help: "Supplier webhook events stored, by type.",
      labelNames: ["type"],
      registers,
    }),
    webhookDuplicates: new Counter({
      name: "order_desk_webhook_duplicates_total",
      help: "Webhook deliveries of an event already stored.",
      registers,
    }),
    webhookRejected: new Counter({
      name: "order_desk_webhook_rejected_total",
      help: "Webhook deliveries refused, by reason.",
      labelNames: ["reason"],
      registers,
    }),
    slackPosts: new Counter({
      name: "order_desk_slack_posts_total",
      help: "Slack Web API calls that post or update a message, by method.",
      labelNames: ["method"],
      registers,
    }),
    slackRateLimited: new Counter({
      name: "order_desk_slack_rate_limited_total",
      help: "Slack Web API calls answered 429, by method.",
      labelNames: ["method"],
      registers,
    }),
    slackSocketConnections: new Gauge({
      name: "order_desk_slack_socket_connections",
      help: "Socket Mode connections to Slack that are open (0: Slack's requests cannot reach Order Desk).",
      registers,
    }),
    slackSocketReconnects: new Counter({
      name: "order_desk_slack_socket_reconnects_total",
      help: "Socket Mode connections replaced, by reason (Slack's disconnect reason, or connection_lost).",
      labelNames: ["reason"],
      registers,
    }),
    slackSocketConnectFailures: new Counter({
      name: "order_desk_slack_socket_connect_failures_total",
      help: "Attempts to open a Socket Mode connection that failed, by error (http_503, timeout, invalid_auth…).",
      labelNames: ["error"],
      registers,
    }),
    queueDepth: new Gauge({
      name: "order_desk_queue_depth",
      help: "Jobs waiting or running, by queue.",
      labelNames: ["queue"],
      registers,
    }),
    oldestJobAgeSeconds: new Gauge({
      name: "order_desk_queue_oldest_job_age_seconds",
      help: "Age of the oldest waiting job, by queue.",
      labelNames: ["queue"],
      registers,
    }),
    approvals: createApprovalMetrics(registers),
    dates: createDateMetrics(registers),
    ordersStalled: new Counter({
      name: "order_desk_orders_stalled_total",
      help: "Orders the watchdog found stalled (counted once per order and condition), by profile and condition.",
      labelNames: ["profile", "condition"],
      registers,
    }),
    buildInfo: new Gauge({
      name: "order_desk_build_info",
      help: "Always 1; its labels name the Order Desk version and the Node.js version this instance runs.",
      labelNames: ["version", "node"],
      registers,
    }),
  };
  metrics.buildInfo.set(buildInfo(), 1);
  for (const [name, labelSets] of Object.entries(KNOWN_LABELS)) {
    const counter = metrics[name as keyof typeof KNOWN_LABELS] as Counter<string>;
    for (const labels of labelSets) counter.inc(labels, 0);
  }
  return metrics;
}

/** The placement job's counters (orders/ports.ts), on these metrics. */
export function placementMetrics(metrics: Metrics): PlacementMetrics {
  return {
    placed: (source) => metrics.ordersPlaced.inc({ source }),
    rejected: (reason) => metrics.ordersRejected.inc({ reason }),
    failed: (reason) => metrics.ordersFailed.inc({ reason }),
  };
}
