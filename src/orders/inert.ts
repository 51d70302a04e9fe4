/**
 * Values someone typed (an order number, a ticket id) inside the sentences the domain writes for Slack (refusals,
 * "already approved by <@U…>"): those sentences are Slack mrkdwn, where our own mentions are markup, so each typed
 * value is made inert: `&`, `<` and `>` escaped, as Slack asks, so it can never open a link or a mention.
 */
export function inert(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
