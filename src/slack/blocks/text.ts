/**
 * Small helpers that keep every text within Block Kit's limits and what others typed or sent (users, the
 * supplier) from being read as markup: an `@channel`, a mention or a disguised link. The message's `text` (what
 * notifications show) is mrkdwn too, so the same rules hold there.
 */
import type { types } from "@slack/bolt";

type PlainTextElement = types.PlainTextElement;

/** Escapes the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The first `end` characters, without splitting a surrogate pair (half an emoji is not valid text). */
function head(text: string, end: number): string {
  const code = text.charCodeAt(end - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

/** Cuts at `max` characters, ending with "…" when something was cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${head(text, Math.max(0, max - 1))}…`;
}

/**
 * A value from outside (a supplier field, a ticket id, an error message) as mrkdwn: escaped, and at most `max`
 * characters once escaped, ending with "…" when cut (never inside an entity such as `&amp;`).
 */
export function shown(value: string, max: number): string {
  // Escaping only lengthens, so nothing past `max` raw characters can be shown: cut before escaping (a megabyte in,
  // `max` characters of work).
  const cut = value.length > max;
  const escaped = escapeMrkdwn(cut ? head(value, max) : value);
  if (!cut && escaped.length <= max) return escaped;
  return `${head(escaped, max - 1).replace(/&[a-z]{0,3}$/, "")}…`;
}

/** Longest URL made a link; Block Kit's text fields hold 2,000–3,000 characters, label included. */
export const MAX_LINK_URL = 1000;
/** Longest label of a link, before escaping. */
export const MAX_LINK_LABEL = 200;

/**
 * Whether `url` can go between `<` and `|` as it is: http(s), a host, no whitespace or control characters and
 * none of `<`, `>`, `|`, which would end the link early and let the rest be read as markup (`<!channel>`,
 * another link).
 */
export function isLinkable(url: string): boolean {
  if (url.length > MAX_LINK_URL || !/^https?:\/\/[^\s<>|\p{Cc}]+$/iu.test(url)) return false;
  try {
    return new URL(url).hostname !== "";
  } catch {
    return false;
  }
}

/**
 * The one way a link is written: `<url|label>` with the label escaped, when the URL is linkable; otherwise the
 * label alone, as text (never the URL: Slack would make a link of it anyway).
 */
export function slackLink(url: string, label: string): string {
  const text = shown(label.trim() === "" ? "link" : label, MAX_LINK_LABEL).replace(/\|/g, "¦");
  return isLinkable(url) ? `<${url}|${text}>` : text;
}

/** A time as Slack shows it in each reader's time zone ("Yesterday at 14:05"), with the ISO time as the fallback. */
export function slackDate(at: Date): string {
  const seconds = Math.floor(at.getTime() / 1000);
  return `<!date^${seconds}^{date_short_pretty} at {time}|${at.toISOString()}>`;
}

export function plain(text: string, max = 3000): PlainTextElement {
  return { type: "plain_text", text: truncate(text.length === 0 ? " " : text, max), emoji: true };
}

export function mrkdwn(text: string, max = 3000): { type: "mrkdwn"; text: string } {
  return { type: "mrkdwn", text: truncate(text.length === 0 ? " " : text, max) };
}
