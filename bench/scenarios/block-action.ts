/**
 * The same signed `block_actions` request again and again (an approver's Approve click): Slack signs each one
 * anew (the signature covers the timestamp, which Bolt checks for freshness). The first click decides; the
 * others take the "already decided" path: either way the listener acks before any work.
 */
import type autocannon from "autocannon";
import { signedForm } from "../lib/slack-form.ts";

export interface BlockActionScenarioOptions {
  signingSecret: string;
  path: string;
  /** The interactive payload as Slack sends it. */
  payload: Record<string, unknown>;
}

export default function blockActionScenario(options: unknown): autocannon.Request[] {
  const { signingSecret, path, payload } = options as BlockActionScenarioOptions;
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return [
    { method: "POST", path, setupRequest: (request) => ({ ...request, ...signedForm(body, signingSecret) }) },
  ];
}
