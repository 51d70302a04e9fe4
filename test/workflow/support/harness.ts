/**
 * The Workflow Builder step wired for real, over loopback (test/helpers/slack-world.ts, HTTP or Socket Mode): the
 * fake Slack Web API, the supplier sandbox, a store, and pg-boss jobs running the real `place-order` handler
 * wrapped by `withWorkflowSteps`. Tests deliver `function_executed` events (`runWorkflowStep`) and read what
 * Slack and the sandbox end up with.
 */

import type { Order } from "../../../src/orders/model/order.ts";
import { withWorkflowSteps } from "../../../src/orders/workflow/placement-job.ts";
import * as functions from "../../../src/slack/listeners/functions/index.ts";
import { createSlackWorkflowFunctions } from "../../../src/slack/outbound/index.ts";
import { getOrderByIdempotencyKey } from "../../../src/store/repositories/orders.ts";
import {
  NO_BOT,
  type SlackWorld,
  type SlackWorldOptions,
  startSlackWorld,
  type Transport,
} from "../../helpers/slack-world.ts";

export { NO_BOT, TRANSPORTS, type Transport } from "../../helpers/slack-world.ts";

export const BOT_TOKEN = "xoxb-wftest";
export const SIGNING_SECRET = "workflow-signing-secret-0123456789";
export const ONBOARDING = "C0ONBOARD";
export const NEW_HIRE = "U0NEWHIRE";

export interface WorkflowHarness extends SlackWorld {
  /** The order a step execution created, once it exists. */
  orderFor(functionExecutionId: string): Promise<Order | null>;
}

export interface WorkflowHarnessOptions {
  /** HTTP (signed events) or Socket Mode (`events_api` envelopes); default HTTP. */
  transport?: Transport;
  supplierUrl: string;
  apiKey: string;
  deadlineMs: number;
  /** Fixed delay between place-order retries (seconds). */
  retryDelaySeconds?: number;
  /** The customer file (default the example's). */
  config?: SlackWorldOptions["config"];
  /** The app's clock. */
  now?: () => Date;
  /** Work the post-update queue (the supplier's events and the date notices posted to the thread). */
  workPostUpdates?: boolean;
}

export async function startWorkflowHarness(options: WorkflowHarnessOptions): Promise<WorkflowHarness> {
  const world = await startSlackWorld({
    ...(options.transport && { transport: options.transport }),
    botToken: BOT_TOKEN,
    signingSecret: SIGNING_SECRET,
    users: [
      { id: NEW_HIRE, name: "nina", realName: "Nina Newhire" },
      { id: "U0MANAGER", name: "mark", realName: "Mark Manager" },
    ],
    channels: [
      { id: ONBOARDING, name: "onboarding" },
      { id: "C0HELPDESK", name: "helpdesk" },
      { id: "C0ITADMIN", name: "it-admin" },
      { id: NO_BOT, name: "helpdesk-eu", botIsMember: false },
    ],
    supplierUrl: options.supplierUrl,
    apiKey: options.apiKey,
    supplierRetry: { maxAttempts: 1 },
    placeOrderPolicy: { retryDelaySeconds: options.retryDelaySeconds ?? 1, retryLimit: 50 },
    register: (app, ctx) => functions.register(app, ctx, { deadlineMs: options.deadlineMs }),
    ...(options.config && { config: options.config }),
    ...(options.now && { now: options.now }),
    ...(options.workPostUpdates && { workPostUpdates: true }),
    // A rejected or expired approval fails the step.
    approvalExtras: ({ fake }) => ({
      workflowFunctions: createSlackWorkflowFunctions({
        token: BOT_TOKEN,
        apiUrl: fake.apiUrl,
        timeoutMs: 5000,
      }),
    }),
    wrapPlaceOrder: (placeOrder, { store, jobs, slack, fake, now }) =>
      withWorkflowSteps(placeOrder, {
        store,
        jobs,
        notifier: slack.notifier,
        // The app's clock, as main.ts gives it: the step's deadline was set by it.
        now,
        functions: createSlackWorkflowFunctions({ token: BOT_TOKEN, apiUrl: fake.apiUrl, timeoutMs: 5000 }),
      }),
  });
  return {
    ...world,
    orderFor: (functionExecutionId) =>
      getOrderByIdempotencyKey(world.store, `function:${functionExecutionId}`),
  };
}

/** The onboarding example of docs/workflows.md: a remote hire's starter kit, delivered at home. */
export function onboardingInputs(ticket: string): Record<string, unknown> {
  return {
    ticket_id: ticket,
    recipient: NEW_HIRE,
    first_name: "Nina",
    last_name: "Newhire",
    email: "nina@example.com",
    phone: "+31 20 555 0101",
    delivery_at: "Home",
    address1: "Keizersgracht 1",
    city: "Amsterdam",
    zip: "1015 CJ",
    country: "NL",
    items: "Remote starter kit",
    channel: ONBOARDING,
  };
}
