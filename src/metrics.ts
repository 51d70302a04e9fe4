import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { createApprovalMetrics, type PrometheusApprovalMetrics } from "./metrics-approvals.ts";

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
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: "order_desk_" });
  const registers = [registry];
  return {
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
  };
}
