/**
 * Approval test helpers: the example customer file with an approval block, reading approvers' DMs, rejecting and
 * resubmitting as people do, and running a delayed approval job when it is due.
 */
import type { ApprovalRule } from "../../../src/config/approval-schema.ts";
import type { CustomerConfig } from "../../../src/config/customer.ts";
import type { JobInfo, QueueName } from "../../../src/jobs/index.ts";
import { QUEUES } from "../../../src/jobs/queues.ts";
import { approvalJobId } from "../../../src/orders/approvals/request.ts";
import type { Order } from "../../../src/orders/model/order.ts";
import { listApprovalMessages } from "../../../src/store/repositories/approvals.ts";
import type { FakeMessage } from "../../../tools/fake-slack/index.ts";
import type { SlackWorld } from "../../helpers/slack-world.ts";
import { AGENT, exampleConfig, type Harness, HELPDESK, IT_LEADS, MANAGER, VALID_FORM } from "./harness.ts";

/** "Acme EU" needs approval by AGENT, MANAGER or IT_LEADS members when a rule of `when` matches. */
export function approvalConfig(
  when: ApprovalRule[] = [{ deliveryAt: "Home" }],
  timing: { remindAfterHours?: number; expireAfterDays?: number } = {},
): CustomerConfig {
  const config = exampleConfig();
  config.profiles[0]!.approval = {
    approvers: [AGENT, MANAGER],
    approverGroups: [IT_LEADS],
    when,
    remindAfterHours: timing.remindAfterHours ?? 24,
    expireAfterDays: timing.expireAfterDays ?? 7,
  };
  return config;
}

export const texts = (blocks: unknown) => JSON.stringify(blocks ?? null);

/** The approval DM `userId` got for the order with this ticket (top-level, latest version shown). */
export function approvalDmFor(h: Harness, userId: string, ticket: string): FakeMessage | undefined {
  return h.fake
    .dm(userId)
    .find((m) => m.threadTs === undefined && texts(m.versions.at(-1)?.blocks).includes(`*${ticket}*`));
}

/** Every top-level DM `userId` got for the order with this ticket, oldest first (one per approval round). */
export function approvalDmsFor(h: Harness, userId: string, ticket: string): FakeMessage[] {
  return h.fake
    .dm(userId)
    .filter((m) => m.threadTs === undefined && texts(m.versions[0]?.blocks).includes(`*${ticket}*`));
}

/** The reminders in the thread of an approver's DM. */
export function remindersUnder(h: Harness, dm: FakeMessage | undefined): FakeMessage[] {
  return dm ? h.fake.thread(dm.channel, dm.ts).filter((m) => m.text.includes("Reminder")) : [];
}

/** " on <!date^…>": when the order was decided, as Slack is asked to show it (in each reader's time zone). */
export function decidedOn(order: Order): string {
  const at = order.approval?.decidedAt;
  if (!at) throw new Error(`order ${order.id} is not decided`);
  return ` on <!date^${Math.floor(at.getTime() / 1000)}^{date_short_pretty} at {time}|${at.toISOString()}>`;
}

/** Waits until the job has run to the end (retries included) and returns it. */
export async function jobDone(h: Harness, queue: QueueName, id: string): Promise<JobInfo> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const job = await h.jobs.getJob(queue, id);
    if (job?.state === "completed") return job;
    if (job?.state === "failed") throw new Error(`${queue} job ${id} failed: ${JSON.stringify(job.output)}`);
    if (Date.now() > deadline) throw new Error(`${queue} job ${id} did not run (${job?.state})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `userId` rejects the order from their DM with `reason` (Reject, then the reason's modal). */
export async function rejectInDm(h: Harness, userId: string, dm: FakeMessage, reason: string): Promise<void> {
  const click = await clickApproval(h, userId, dm, "reject_order");
  const modal = await h.user(userId).openedModal(click.triggerId);
  const done = await h.user(userId).submit(modal.id, { reject_reason: reason });
  if (done.outcome.outcome !== "closed")
    throw new Error(`the rejection was refused: ${JSON.stringify(done)}`);
}

/** The requester uses Fix and resubmit on a rejected order's message, once it offers it: the form it opens. */
export async function openFixAndResubmit(h: Harness, rejected: Order) {
  await h.fake.waitFor(
    () => {
      const v = h.fake.message(HELPDESK, rejected.slackMessageTs!)?.versions.at(-1);
      return v && texts(v.blocks).includes("fix_and_resubmit") ? v : undefined;
    },
    { what: "Fix and resubmit on the order's message" },
  );
  const click = await h.agent.clickInMessage({
    channel: HELPDESK,
    ts: rejected.slackMessageTs!,
    actionId: "fix_and_resubmit",
  });
  return h.agent.openedModal(click.triggerId);
}

/**
 * The requester uses Fix and resubmit on a rejected order's message (once it offers it) and submits the form as it
 * is; resolves with the order waiting for approval again.
 */
export async function fixAndResubmit(h: Harness, rejected: Order): Promise<Order> {
  const fix = await openFixAndResubmit(h, rejected);
  const resubmitted = await h.agent.submit(fix.id, {});
  if (resubmitted.outcome.outcome !== "closed") {
    throw new Error(`the resubmission was refused: ${JSON.stringify(resubmitted.outcome)}`);
  }
  return h.waitForOrder(
    (o) => o.id === rejected.id && o.status === "awaiting_approval",
    "the resubmitted order waiting for approval",
  );
}

/**
 * A delayed job (a reminder, an expiry) reaches its due time: the app's clock is moved on to it (if behind), the
 * queue, which runs jobs by the database's clock, is told it is due now, and the test waits until the job ran to
 * the end (retries included) and returns it. A run that was put off (it came up before the app's clock reached its
 * time) or waits for a retry is made due again. The job, its payload and its handler are the real ones; only the
 * waits for its `startAfter` are skipped.
 */
export async function runWhenDue(
  h: Pick<SlackWorld, "jobs" | "store" | "clockReaches">,
  queue: QueueName,
  id: string,
): Promise<JobInfo> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const job = await h.jobs.getJob(queue, id);
    if (!job) throw new Error(`no ${queue} job ${id}`);
    if (job.state === "completed") return job;
    if (job.state === "failed") throw new Error(`${queue} job ${id} failed: ${JSON.stringify(job.output)}`);
    if (job.state === "created" || job.state === "retry") {
      h.clockReaches(job.startAfter);
      await h.store.query(
        `UPDATE ${h.jobs.schema}.job SET start_after = now() - interval '1 second'
         WHERE name = $1 AND id = $2 AND state IN ('created', 'retry') AND start_after > now()`,
        [queue, id],
      );
    }
    if (Date.now() > deadline) throw new Error(`${queue} job ${id} did not run (${job.state})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `/order` in #helpdesk, the modal filled with a valid form for `ticket` (plus `changes`), submitted. */
export async function orderFor(h: Harness, ticket: string, changes: Record<string, unknown> = {}) {
  const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
  const view = await h.agent.openedModal(triggerId);
  const submitted = await h.agent.submit(view.id, {
    ...VALID_FORM,
    ticket,
    profile: "Acme EU",
    ...(changes as Record<string, never>),
  });
  if (submitted.outcome.outcome !== "closed") {
    throw new Error(`the order for ${ticket} was not accepted: ${JSON.stringify(submitted.outcome)}`);
  }
  return h.waitForOrder((o) => o.customerReference === ticket, `the order for ${ticket}`);
}

/** Clicks a button of an approval DM as `userId`, whoever the DM was for (the payload names the clicker). */
export async function clickApproval(
  h: Harness,
  userId: string,
  dm: FakeMessage,
  actionId: "approve_order" | "reject_order",
) {
  return h.user(userId).clickInMessage({ channel: dm.channel, ts: dm.ts, actionId });
}

/**
 * Replays a click on the DM as it was first posted (a stale copy on another device, or a hostile replay): the
 * buttons may be gone from what Slack shows now, the payload still names them.
 */
export async function replayClick(
  h: Harness,
  userId: string,
  dm: FakeMessage,
  actionId: "approve_order" | "reject_order",
  value?: string,
) {
  const first = dm.versions[0];
  const buttons = (
    (first?.blocks ?? []) as { elements?: { action_id?: string; value?: string }[] }[]
  ).flatMap((b) => b.elements ?? []);
  const button = buttons.find((e) => e.action_id === actionId);
  return h.requests.blockActions({
    userId,
    triggerId: h.fake.issueTriggerId(userId),
    message: {
      channelId: dm.channel,
      message: { ts: dm.ts, text: first?.text ?? "", blocks: first?.blocks },
    },
    responseUrl: h.fake.responseUrl(),
    actions: [
      {
        type: "button",
        action_id: actionId,
        block_id: "approval_actions",
        value: value ?? button?.value ?? "",
      },
    ],
  });
}

/** Waits until each of `userIds` has the approval DM for the order with this ticket; the DMs in that order. */
export function approvalDmsTo(h: Harness, userIds: string[], ticket: string): Promise<FakeMessage[]> {
  return h.fake.waitFor(
    () => {
      const found = userIds.map((u) => approvalDmFor(h, u, ticket));
      return found.every((dm) => dm !== undefined) ? found : undefined;
    },
    { what: "a DM to each approver" },
  );
}

/**
 * Waits until the order's approval request job (of `round`, default the first) ran to the end: every approver's DM
 * is recorded by then. A reminder or an expiry forced to run earlier would not know the approvers not yet recorded.
 */
export function approvalRequestDone(h: Harness, orderId: string, round?: string): Promise<JobInfo> {
  return jobDone(h, QUEUES.approvalRequest, approvalJobId(QUEUES.approvalRequest, orderId, round));
}

/** The order's (first request's) reminder job reaches its due time: see `runWhenDue`. */
export function runReminderWhenDue(h: Harness, orderId: string): Promise<JobInfo> {
  return runWhenDue(h, QUEUES.approvalReminder, approvalJobId(QUEUES.approvalReminder, orderId));
}

/** For each approver the order's request DMed: whether they were reminded. */
export async function reminded(h: Harness, orderId: string): Promise<boolean[]> {
  return (await listApprovalMessages(h.store, orderId)).map((m) => m.remindedAt !== null);
}
