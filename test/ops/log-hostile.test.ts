/**
 * The log filter (src/log.ts) against what an attacker chooses: a 15,000-character header, a megabyte field, text
 * built to make a pattern backtrack. Each line costs the same whatever was sent (strings are cut before any
 * pattern runs), the e-mail scan finds what the address pattern finds in one pass, and a cut never leaves half a
 * secret behind. These tests check the output only; the time a megabyte takes is a row of `npm run bench -- hostile`
 * (a quadratic scan would not finish a megabyte within the test's timeout either).
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  capForLog,
  createLogger,
  MAX_LOGGED_CHARS,
  scrubEmails,
  scrubText,
  scrubUncapped,
} from "../../src/log.ts";

/** The address pattern the scan replaces, as the reference for what counts as an address. */
const ADDRESS = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const API_KEY = `ops_live_${randomBytes(16).toString("hex")}`;
const MB = 1_000_000;

function capture(level = "debug") {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { logger: createLogger({ level }, sink), lines };
}

describe("the e-mail scan", () => {
  it("finds exactly what the address pattern finds", () => {
    const alphabet = fc.constantFrom(..."abZ1-._%+@ xcom".split(""));
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 60 }), (text) => {
        expect(scrubEmails(text, "#")).toBe(text.replace(ADDRESS, "#"));
      }),
      { numRuns: 20_000 },
    );
    for (const text of [
      "a@b@c.com",
      "x@a.comy@b.org",
      "a@b.com123",
      "mail a-b_c%d@ex-ample.co.uk, y@z.io!",
    ]) {
      expect(scrubEmails(text, "#")).toBe(text.replace(ADDRESS, "#"));
    }
  });

  it("scrubs a megabyte of text built to make a pattern backtrack, finding every address", () => {
    // Runs of name characters with no `@`, `@` without a domain, domains without a top-level label: each made
    // the address pattern re-read the run from every start position.
    const noAt = "a".repeat(MB);
    expect(scrubEmails(noAt)).toBe(noAt);
    const bareAts = "a@".repeat(MB / 2);
    expect(scrubEmails(bareAts)).toBe(bareAts);
    const noTld = `a@b${".1".repeat(MB / 2)}`;
    expect(scrubEmails(noTld)).toBe(noTld);
    const dots = `${"a.".repeat(MB / 2)}@`;
    expect(scrubEmails(dots)).toBe(dots);
    expect(scrubEmails(`${"a".repeat(MB)}@example.com`)).toBe("[redacted]");
    const many = "ab@cd.ef ".repeat(MB / 10);
    expect(scrubEmails(many)).toBe("[redacted] ".repeat(MB / 10));
  });
});

describe("the secret patterns", () => {
  it("scrub a megabyte of near-secrets in one pass, and every real one in it", () => {
    for (const near of ["xoxb-", "ab_live_", "a1_", "whsec_", "v1,", "xapp-x"]) {
      const text = `${near} `.repeat(MB / (near.length + 1));
      expect(scrubUncapped(text, { personalData: true })).toBe(text);
    }
    const keys = `${API_KEY} `.repeat(MB / (API_KEY.length + 1));
    expect(scrubUncapped(keys)).toBe("[redacted] ".repeat(MB / (API_KEY.length + 1)));
    expect(scrubUncapped(`xoxb-${"a".repeat(MB)}`)).toBe("[redacted]");
  });
});

describe("strings in log lines", () => {
  it("are cut at a separator, never inside a token that could be a secret", () => {
    const before = "x ".repeat((MAX_LOGGED_CHARS - 10) / 2);
    const cut = capForLog(`${before}${API_KEY} and more`);
    expect(cut.startsWith(before)).toBe(true);
    expect(cut).not.toContain(API_KEY.slice(0, 8));
    expect(cut).toMatch(/…\[\d+ more characters not logged\]$/);
    // No separator at all: nothing of it is kept.
    expect(capForLog("k".repeat(15_000))).toBe("…[15000 more characters not logged]");
    expect(capForLog("short")).toBe("short");
  });

  it("scrub secrets and addresses after the cut, so a megabyte costs what its first few thousand characters cost", () => {
    const text = `key ${API_KEY} for ann@example.com ${"a".repeat(MB)}`;
    const scrubbed = scrubText(text);
    expect(scrubbed.length).toBeLessThan(MAX_LOGGED_CHARS + 60);
    expect(scrubbed).not.toContain(API_KEY);
    expect(scrubbed).not.toContain("ann@example.com");
    expect(scrubText(text, { personalData: true })).toContain("ann@example.com");
  });

  it("keep a log line small whatever a caller sent: a 15,000-character header, a 900 KB field at debug level", () => {
    const { logger, lines } = capture();
    const header = `${"w".repeat(14_000)}@${"x.".repeat(500)}`;
    logger.warn({ reason: "missing_headers", webhookId: header }, `webhook refused: not ${header}`);
    const reason = `${"late delivery ".repeat(64_300)}contact ann@example.com`;
    logger.debug({ event: { data: { status: "cancelled", reason } } }, reason);
    logger.debug(`http request body: ${JSON.stringify({ text: reason })}`);
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line.length).toBeLessThan(3 * MAX_LOGGED_CHARS);
      expect(line).not.toContain("ann@example.com");
    }
    expect(JSON.parse(lines[0] as string)).toMatchObject({ reason: "missing_headers" });
  });
});
