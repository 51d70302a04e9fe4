/**
 * An order through Slack's request path as an agent places it (`/order TICKET`, the modal, Submit), for the
 * upgrade fixture's scenario: tools/ only, so that it runs in a checkout of an earlier release as it is.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { SlackUser } from "../fake-slack/index.ts";

/** A valid one-line order (one parcel: few events). */
function orderForm(ticket: string) {
  const n = Number(ticket.replace(/\D/g, "")) || 1;
  return {
    first_name: "Upgrade",
    last_name: `Tester ${n}`,
    email: `upgrade.tester.${n}@example.com`,
    phone: "+31 20 555 0199",
    delivery_at: "Office",
    company: "Acme BV",
    address1: `Herengracht ${n}`,
    city: "Amsterdam",
    zip: "1017 CB",
    country: { value: "NL", text: "Netherlands (NL)" },
    line_0_item: { value: "LAP-14-PRO", text: 'Laptop 14" Pro (LAP-14-PRO)' },
    line_0_quantity: "1",
  };
}

/** Places one order, trying again (as a person would) until the modal closes on Submit; throws after `deadline`. */
export async function orderThroughSlack(agent: SlackUser, ticket: string, channel: string, deadline: number) {
  const problems: string[] = [];
  let refused: string | null = null;
  for (;;) {
    if (refused !== null) throw new Error(refused);
    if (Date.now() > deadline) throw new Error(`${ticket} not accepted: ${problems.slice(-5).join(" | ")}`);
    try {
      const { response, triggerId } = await agent.runCommand({ channel, command: "/order", text: ticket });
      if (response.status !== 200) throw new Error(`/order answered HTTP ${response.status}`);
      const view = await agent.openedModal(triggerId);
      agent.fill(view.id, orderForm(ticket));
      const submission = await agent.submit(view.id);
      if (submission.response.status === 200 && submission.outcome.outcome === "closed") return;
      // Answered but not closed: the order was refused; ordering again could only make a second one.
      if (submission.response.status === 200) refused = `${ticket} refused: ${submission.outcome.outcome}`;
      problems.push(`submit: HTTP ${submission.response.status} ${submission.outcome.outcome}`);
    } catch (error) {
      problems.push((error as Error).message);
    }
    await sleep(250);
  }
}
