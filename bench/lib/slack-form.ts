/**
 * A valid order-modal submission, taken from a real modal: `/order` against our app, which opens the modal in a
 * fake Slack; the form is filled as an agent would and the view is taken as Slack would send it. Benchmarks then
 * clone it with a fresh view id and ticket id per request (`cloneSubmission`), so each one is a new order.
 */
import { randomBytes } from "node:crypto";
import { EXAMPLE_DELIVERY } from "../../tools/example-form.ts";
import { type FakeSlack, SlackUser } from "../../tools/fake-slack/index.ts";
import { createSlackRequests, signSlackRequest } from "../../tools/slack-requests.ts";

export const AGENT = "U0AGENT01";
export const HELPDESK = "C0HELPDESK";
export const IT_ADMIN = "C0ITADMIN";

/** A complete delivery as an agent types it (keys: block ids of the order modal). */
export const FORM = { ticket: "ABC-123", ...EXAMPLE_DELIVERY, profile: "Acme EU" } as const;

export interface SubmissionSource {
  signingSecret: string;
  /** Our app's `/slack/events` URL. */
  eventsUrl: string;
}

/**
 * Opens the order modal through our app and returns a valid submission's payload. One real submission is made
 * first (it places an order) to prove the payload is accepted before it is cloned.
 */
export async function validSubmission(
  fake: FakeSlack,
  source: SubmissionSource,
): Promise<Record<string, unknown>> {
  const requests = createSlackRequests({
    url: source.eventsUrl,
    signingSecret: source.signingSecret,
    teamId: fake.teamId,
    appId: fake.appId,
  });
  const agent = new SlackUser({ fake, requests, userId: AGENT, timeoutMs: 10_000 });
  const { triggerId } = await agent.runCommand({ channel: HELPDESK, command: "/order", text: FORM.ticket });
  const view = await agent.openedModal(triggerId);
  agent.fill(view.id, FORM);
  const probe = await agent.submit(view.id);
  if (probe.outcome.outcome !== "closed") {
    throw new Error(`the probe submission was not accepted: ${JSON.stringify(probe.response.body)}`);
  }
  return {
    type: "view_submission",
    team: { id: fake.teamId, domain: "order-desk-bench" },
    user: { id: AGENT, username: "alice", name: "alice", team_id: fake.teamId },
    api_app_id: fake.appId,
    token: "fake-verification-token",
    trigger_id: fake.issueTriggerId(AGENT),
    view: fake.viewPayload(view.id),
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

type StateValues = Record<string, Record<string, { value?: string }>>;

/** Letters only, so every ticket id built from it matches the customer's pattern (ABC-123). */
export function letterPrefix(length = 4): string {
  return Array.from(randomBytes(length), (b) => String.fromCharCode(65 + (b % 26))).join("");
}

/**
 * The payload with its own view id (and root view id: the app's idempotency key is the root view's id, so
 * keeping the original would make every clone a double submit of the probe's order) and its own ticket id.
 */
export function cloneSubmission(
  template: string,
  ticketBlockId: string,
  viewId: string,
  ticket: string,
): Record<string, unknown> {
  const p = JSON.parse(template) as {
    view: { id: string; root_view_id?: string | null; state: { values: StateValues } };
  };
  p.view.id = viewId;
  p.view.root_view_id = viewId;
  const block = p.view.state.values[ticketBlockId];
  for (const action of Object.values(block ?? {})) action.value = ticket;
  return p as unknown as Record<string, unknown>;
}

/** The form body and signature headers of an interactive request, signed now (Bolt checks freshness). */
export function signedInteraction(
  payload: Record<string, unknown>,
  signingSecret: string,
): { body: string; headers: Record<string, string> } {
  return signedForm(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), signingSecret);
}

/** Signature headers for a form body, signed now. */
export function signedForm(
  body: string,
  signingSecret: string,
): { body: string; headers: Record<string, string> } {
  const signed = signSlackRequest({ signingSecret, timestampSec: Math.floor(Date.now() / 1000), body });
  return { body, headers: { "content-type": "application/x-www-form-urlencoded", ...signed } };
}

const VIEW_SLOT = "QQVIEWSLOTQQ";
const TICKET_SLOT = "QQTICKETSLOTQQ";
/** Characters form encoding leaves as they are: an id made of them goes into an encoded body unchanged. */
const FORM_SAFE = /^[A-Za-z0-9-]+$/;

/**
 * `cloneSubmission` then form encoding, with the work done once: the body is encoded with two slots and each
 * request only fills them. The load generator shares the machine with the servers it measures; parsing,
 * re-serialising and encoding the 15 KiB payload for every request kept it at 80-95 % of a core while it
 * drove Bolt's ack-only app, CPU the servers under test (and PostgreSQL) then competed for.
 */
export function submissionBodies(
  template: string,
  ticketBlockId: string,
): (viewId: string, ticket: string) => string {
  const payload = cloneSubmission(template, ticketBlockId, VIEW_SLOT, TICKET_SLOT);
  const encoded = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const parts = encoded.split(new RegExp(`(${VIEW_SLOT}|${TICKET_SLOT})`));
  return (viewId, ticket) => {
    if (!FORM_SAFE.test(viewId) || !FORM_SAFE.test(ticket)) {
      throw new Error(`ids must be letters, digits and dashes to fill an encoded body: ${viewId}, ${ticket}`);
    }
    let body = "";
    for (const part of parts) body += part === VIEW_SLOT ? viewId : part === TICKET_SLOT ? ticket : part;
    return body;
  };
}
