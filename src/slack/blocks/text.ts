/** Small helpers that keep every text within Block Kit's limits and user input from being read as markup. */
import type { types } from "@slack/bolt";

type PlainTextElement = types.PlainTextElement;

/** Escapes the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Cuts at `max` characters, ending with "…" when something was cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 1))}…`;
}

export function plain(text: string, max = 3000): PlainTextElement {
  return { type: "plain_text", text: truncate(text.length === 0 ? " " : text, max), emoji: true };
}

export function mrkdwn(text: string, max = 3000): { type: "mrkdwn"; text: string } {
  return { type: "mrkdwn", text: truncate(text.length === 0 ? " " : text, max) };
}
