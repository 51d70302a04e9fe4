/**
 * The shape every `order-desk doctor` check shares, and the runner that gives each one a deadline so the
 * doctor never hangs on a dead dependency.
 */
import { redactUrlsIn } from "../redact-url.ts";

/** `note`: nothing is wrong, but something will happen that the reader should know (a store a start creates). */
export type CheckStatus = "ok" | "note" | "warn" | "fail";

export interface CheckOutcome {
  status: CheckStatus;
  /** One line an operator can act on. Never a secret: the doctor also scrubs known secrets from it. */
  detail: string;
}

export interface CheckResult extends CheckOutcome {
  name: string;
}

export const ok = (detail: string): CheckOutcome => ({ status: "ok", detail });
export const note = (detail: string): CheckOutcome => ({ status: "note", detail });
export const warn = (detail: string): CheckOutcome => ({ status: "warn", detail });
export const fail = (detail: string): CheckOutcome => ({ status: "fail", detail });

/**
 * Runs `fn` with an abort signal that fires after `timeoutMs`, and settles at that deadline even when `fn`
 * ignores the signal. A thrown error becomes a `fail` carrying the error's message (our errors' messages are
 * written to be shown and never hold secrets).
 */
export async function runCheck(
  name: string,
  timeoutMs: number,
  fn: (signal: AbortSignal) => Promise<CheckOutcome>,
): Promise<CheckResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`${name} check timed out`));
      resolve(fail(`no answer within ${timeoutMs} ms (raise it with --timeout-ms if the network is slow)`));
    }, timeoutMs);
  });
  try {
    const outcome = await Promise.race([fn(controller.signal).catch(errorOutcome), deadline]);
    return { name, ...outcome };
  } finally {
    clearTimeout(timer);
  }
}

function errorOutcome(error: unknown): CheckOutcome {
  return fail(describeError(error));
}

/** The message of an error (or its code), on one line. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || (typeof code === "string" ? code : error.name);
    return oneLine(message);
  }
  return oneLine(String(error));
}

export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/**
 * Replaces every occurrence of each secret in `text`. The checks never put a secret in a detail on purpose;
 * this is the safety net for a dependency's error message that echoes more than it should.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  // Credentials written into any URL (a dependency's error message may echo one), then the known values.
  let out = redactUrlsIn(text);
  // Longest first, so a secret that contains another is replaced whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 6) out = out.split(secret).join("[redacted]");
  }
  return out;
}

/** `ok    name          detail`, columns aligned over the whole list. */
export function formatResults(results: readonly CheckResult[]): string {
  const width = Math.max(0, ...results.map((r) => r.name.length));
  return results.map((r) => `${r.status.padEnd(4)}  ${r.name.padEnd(width)}  ${r.detail}`).join("\n");
}

export function summarize(results: readonly CheckResult[]): string {
  const count = (status: CheckStatus) => results.filter((r) => r.status === status).length;
  const notes = count("note");
  return `${results.length} checks: ${count("ok")} ok, ${notes > 0 ? `${notes} note, ` : ""}${count("warn")} warn, ${count("fail")} fail`;
}
