/**
 * What anyone on the network can send to `POST /webhooks/supplier` without credentials: no signature, and one
 * header of 15,000 characters (Node accepts 16 KB of headers in all), alternating between a long `webhook-id`
 * and a long `content-type`. Each is refused; what the refusal costs (its log line above all) is what is measured.
 */
import type autocannon from "autocannon";

export interface RefusedWebhookScenarioOptions {
  path: string;
  /** Length of the long header (default 15,000). */
  headerChars?: number;
}

export default function refusedWebhookScenario(options: unknown): autocannon.Request[] {
  const { path, headerChars = 15_000 } = options as RefusedWebhookScenarioOptions;
  const long = "h".repeat(headerChars);
  return [
    {
      method: "POST",
      path,
      headers: { "content-type": "application/json", "webhook-id": `msg_${long}` },
      body: "{}",
    },
    { method: "POST", path, headers: { "content-type": `application/${long}` }, body: "{}" },
  ];
}
