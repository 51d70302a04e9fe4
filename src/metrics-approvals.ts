/**
 * Approval metrics (src/orders/approvals/): requests, decisions by outcome, and the time from request to decision,
 * by profile, so a team sees how much waits on its approvers and for how long.
 */
import { Counter, Histogram, type Registry } from "prom-client";
import type { ApprovalMetrics } from "./orders/approvals/ports.ts";

export interface PrometheusApprovalMetrics extends ApprovalMetrics {
  requestedTotal: Counter<"profile">;
  decidedTotal: Counter<"outcome" | "profile">;
  secondsToDecision: Histogram<"outcome">;
}

export function createApprovalMetrics(registers: Registry[]): PrometheusApprovalMetrics {
  const requestedTotal = new Counter({
    name: "order_desk_approvals_requested_total",
    help: "Orders that matched an approval rule and wait for an approver, by profile.",
    labelNames: ["profile"],
    registers,
  });
  const decidedTotal = new Counter({
    name: "order_desk_approvals_decided_total",
    help: "Approval requests ended, by outcome (approved, rejected, expired) and profile.",
    labelNames: ["outcome", "profile"],
    registers,
  });
  const secondsToDecision = new Histogram({
    name: "order_desk_approval_decision_seconds",
    help: "Time from an approval request to its decision or expiry, by outcome.",
    labelNames: ["outcome"],
    // From a minute to the default expiry of 7 days.
    buckets: [60, 300, 900, 3600, 4 * 3600, 8 * 3600, 86_400, 2 * 86_400, 7 * 86_400],
    registers,
  });
  return {
    requestedTotal,
    decidedTotal,
    secondsToDecision,
    requested: (profile) => requestedTotal.inc({ profile }),
    decided(outcome, profile, seconds) {
      decidedTotal.inc({ outcome, profile });
      secondsToDecision.observe({ outcome }, seconds);
    },
  };
}
