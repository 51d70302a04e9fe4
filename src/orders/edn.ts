/**
 * External document numbers from the customer file's pattern (`{ticket}-{seq}` by default). The counter lives in
 * the database (gapless, per rendered prefix) and is taken inside the transaction that stores the order, so two
 * agents ordering for the same ticket get ABC-123-1 and ABC-123-2, and a rolled-back submit gives its number back.
 */

import type { Queryable } from "../store/db.ts";
import { nextValues } from "../store/repositories/sequences.ts";

export interface EdnContext {
  ticket: string;
  profile: string;
  now: Date;
}

/** Keeps what document numbers usually allow: `#123` → `123`, spaces and punctuation dropped. */
export function ticketToken(ticket: string): string {
  return ticket.replace(/[^A-Za-z0-9._/-]/g, "");
}

function profileToken(profile: string): string {
  return profile.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

function dateToken(now: Date): string {
  return now.toISOString().slice(0, 10).replace(/-/g, "");
}

const SEQ = /\{seq(?::(\d))?\}/g;

/** The pattern with everything but the counter filled in: the counter's key. */
export function ednPrefix(pattern: string, ctx: EdnContext): string {
  return pattern
    .replaceAll("{ticket}", ticketToken(ctx.ticket))
    .replaceAll("{profile}", profileToken(ctx.profile))
    .replaceAll("{date}", dateToken(ctx.now));
}

export function renderEdn(pattern: string, ctx: EdnContext, seq: number): string {
  return ednPrefix(pattern, ctx).replace(SEQ, (_, digits: string | undefined) =>
    String(seq).padStart(digits ? Number(digits) : 0, "0"),
  );
}

/** Takes the next number for this prefix; call inside the transaction that inserts the order. */
export async function nextEdn(q: Queryable, pattern: string, ctx: EdnContext): Promise<string> {
  const [edn] = await nextEdns(q, pattern, [ctx]);
  return edn as string;
}

/** `nextEdn` for several orders at once (one statement); numbers of one prefix are given in the order asked. */
export async function nextEdns(
  q: Queryable,
  pattern: string,
  contexts: readonly EdnContext[],
): Promise<string[]> {
  const keys = contexts.map((ctx) => `edn:${ednPrefix(pattern, ctx)}`);
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  const next = await nextValues(q, counts);
  return contexts.map((ctx, i) => {
    const key = keys[i] as string;
    const seq = next.get(key) as number;
    next.set(key, seq + 1);
    return renderEdn(pattern, ctx, seq);
  });
}
