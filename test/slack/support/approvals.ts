/** Approval test helpers: the example customer file with an approval block, and reading approvers' DMs. */
import type { ApprovalRule } from "../../../src/config/approval-schema.ts";
import type { CustomerConfig } from "../../../src/config/customer.ts";
import type { FakeMessage } from "../../../tools/fake-slack/index.ts";
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
