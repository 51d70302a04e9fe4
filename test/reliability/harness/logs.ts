/**
 * The log scan: no API key, Slack token, signing secret or webhook secret may appear in anything Order Desk
 * wrote. Besides each secret verbatim, the forms a careless log line would carry are searched too: the
 * base64 body of a `whsec_` secret, and the secret JSON-escaped.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface LeakFinding {
  file: string;
  /** Which secret, never the secret itself: its kind and last 4 characters. */
  secret: string;
  line: number;
}

function forms(secret: string): string[] {
  const out = new Set([secret, JSON.stringify(secret).slice(1, -1)]);
  if (secret.startsWith("whsec_")) out.add(secret.slice("whsec_".length));
  return [...out].filter((s) => s.length >= 8);
}

function describe(secret: string): string {
  const kind = secret.startsWith("xoxb-")
    ? "bot token"
    : secret.startsWith("whsec_")
      ? "webhook secret"
      : /_test_|_live_/.test(secret)
        ? "API key"
        : secret.startsWith("xwfp-")
          ? "workflow token"
          : "secret";
  return `${kind} …${secret.slice(-4)}`;
}

/** Workflow tokens (one per step run, thousands in a fuzz run) are found by their shape, then looked up. */
const WORKFLOW_TOKEN = /xwfp-[0-9a-f]+-[0-9a-f]+/g;

export function scanText(text: string, secrets: readonly string[], file: string): LeakFinding[] {
  const findings: LeakFinding[] = [];
  const workflowTokens = new Set(secrets.filter((s) => s.startsWith("xwfp-")));
  if (workflowTokens.size > 0) {
    for (const match of text.matchAll(WORKFLOW_TOKEN)) {
      if (workflowTokens.has(match[0])) {
        findings.push({
          file,
          secret: describe(match[0]),
          line: text.slice(0, match.index).split("\n").length,
        });
        break;
      }
    }
  }
  for (const secret of secrets) {
    if (secret.startsWith("xwfp-")) continue;
    for (const form of forms(secret)) {
      const at = text.indexOf(form);
      if (at >= 0) {
        findings.push({ file, secret: describe(secret), line: text.slice(0, at).split("\n").length });
        break;
      }
    }
  }
  return findings;
}

export function scanFile(path: string, secrets: readonly string[]): LeakFinding[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return scanText(text, secrets, path);
}

export function scanDir(
  dir: string,
  secrets: readonly string[],
): { files: number; bytes: number; findings: LeakFinding[] } {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return { files: 0, bytes: 0, findings: [] };
  }
  let bytes = 0;
  const findings: LeakFinding[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const text = readFileSync(path, "utf8");
    bytes += text.length;
    findings.push(...scanText(text, secrets, path));
  }
  return { files: names.length, bytes, findings };
}
