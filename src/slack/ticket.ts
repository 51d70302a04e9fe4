/** Finding a ticket id in what the agent typed (`/order ABC-123`) or in the message a shortcut was used on. */

/** The first word of `text` that is a ticket id by the customer's pattern, or null. */
export function findTicketId(text: string, pattern: RegExp): string | null {
  // Slack formats links as <url|label>; the label and the bare words are what a person reads.
  const words = text
    .replace(/<[^|>]*\|([^>]*)>/g, " $1 ")
    .split(/[\s,;:()[\]{}<>|"'`*_~]+/)
    .map((w) => w.replace(/[.!?]+$/, ""))
    .filter(Boolean);
  for (const word of words) if (pattern.test(word)) return word;
  return null;
}

/** `/order abc-123` → "ABC-123" when the upper-case form is a ticket id; else the first word as typed. */
export function ticketFromCommand(text: string, pattern: RegExp): string {
  const first = text.trim().split(/\s+/)[0] ?? "";
  if (first === "") return "";
  if (pattern.test(first)) return first;
  const upper = first.toUpperCase();
  return pattern.test(upper) ? upper : first;
}
