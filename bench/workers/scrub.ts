/**
 * The log filter's cost on what an attacker chooses, measured in its own process as CPU time (a wall clock on a
 * shared machine charges a 50 ms run for every other process that ran meanwhile, and a 1 ms run rarely):
 * - the scrub of text built to make a pattern backtrack (runs of address characters, `@` without a domain,
 *   domains without a top-level label, near-secrets): one megabyte against ten times 100 KB. A linear filter
 *   takes the same for both; a quadratic one ten times as long for the megabyte;
 * - one log line of a refused webhook whose header is 15,000 characters, against the same line with a short one.
 * Each figure is the median of several runs.
 */
import { Writable } from "node:stream";
import { createLogger, scrubUncapped } from "../../src/log.ts";
import { readChildConfig, reportResult } from "../lib/ipc.ts";
import { median } from "../lib/stats.ts";

export interface ScrubConfig {
  repeats: number;
  lines: number;
}

export interface ScrubResult {
  /** CPU milliseconds to scrub ten texts of 100 KB, and one of 1 MB, of adversarial text. */
  tenSmallMs: number;
  largeMs: number;
  /** CPU microseconds per log line, long header and short. */
  longLineUs: number;
  shortLineUs: number;
}

/** `chars` characters of text that is hard on address and secret patterns, a quarter of each kind. */
export function adversarial(chars: number): string {
  const quarter = Math.floor(chars / 4);
  const parts = ["a", "a@", "a@b.1", "xoxb-a "].map((unit) => unit.repeat(Math.ceil(quarter / unit.length)));
  return parts.map((p) => p.slice(0, quarter)).join(" ");
}

/** Median CPU time (user + system) of `fn`, in milliseconds. */
function cpuMs(fn: () => void, repeats: number): number {
  const samples: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const started = process.cpuUsage();
    fn();
    const used = process.cpuUsage(started);
    samples.push((used.user + used.system) / 1000);
  }
  return median(samples);
}

const config = readChildConfig<ScrubConfig>();
const small = adversarial(100_000);
const large = adversarial(1_000_000);
// Warm the code paths once before timing.
scrubUncapped(small);
const tenSmallMs = cpuMs(() => {
  for (let i = 0; i < 10; i++) scrubUncapped(small);
}, config.repeats);
const largeMs = cpuMs(() => scrubUncapped(large), config.repeats);

const sink = new Writable({
  write(_chunk, _encoding, callback) {
    callback();
  },
});
const logger = createLogger({ level: "info" }, sink);
const refusal = (webhookId: string) => () => {
  for (let i = 0; i < config.lines; i++) {
    logger.warn({ reason: "missing_headers", webhookId }, "webhook refused: The request lacks the headers.");
  }
};
const longHeader = `msg_${"h".repeat(15_000)}`;
refusal(longHeader)();
const longLineUs = (cpuMs(refusal(longHeader), config.repeats) * 1000) / config.lines;
const shortLineUs = (cpuMs(refusal("msg_2f4c8a1e9b7d"), config.repeats) * 1000) / config.lines;

await reportResult({ tenSmallMs, largeMs, longLineUs, shortLineUs } satisfies ScrubResult);
