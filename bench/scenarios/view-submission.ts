/**
 * Valid `view_submission` requests signed as Slack signs them (v0: HMAC-SHA256 over `v0:{ts}:{body}`), made
 * from one real modal: each request gets its own view id (the app places one order per view, so a repeated
 * id would take the duplicate path) and its own ticket id (one document-number sequence per ticket, as in real
 * use). Signed per request: the signature covers the timestamp, which Bolt checks for freshness.
 */
import type autocannon from "autocannon";
import { letterPrefix, signedForm, submissionBodies } from "../lib/slack-form.ts";

export interface ViewSubmissionScenarioOptions {
  signingSecret: string;
  path: string;
  /** The interactive payload of a valid submission, as Slack sends it (`view` with `state.values`). */
  payload: Record<string, unknown>;
  /** The input block holding the ticket id. */
  ticketBlockId: string;
}

export default function viewSubmissionScenario(options: unknown): autocannon.Request[] {
  const { signingSecret, path, payload, ticketBlockId } = options as ViewSubmissionScenarioOptions;
  const prefix = letterPrefix();
  const bodies = submissionBodies(JSON.stringify(payload), ticketBlockId);
  let sequence = 0;
  return [
    {
      method: "POST",
      path,
      setupRequest: (request) => {
        sequence += 1;
        const body = bodies(`V${prefix}${sequence}`, `B${prefix}-${sequence}`);
        return { ...request, ...signedForm(body, signingSecret) };
      },
    },
  ];
}
