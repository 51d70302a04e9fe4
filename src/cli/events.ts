/**
 * `order-desk events check FILE.json [--headers FILE]`: runs a sample body from the supplier through the
 * signature (when its headers are given) and the customer file's `supplierEvents` mapping, and prints what
 * Order Desk would store and what the order's thread would say, or exactly which field it could not find.
 * Needs no database, no Slack and no supplier: try a mapping before trusting it.
 *
 * `order-desk events reprocess [--since DATE]`: reads the deliveries kept as unreadable again with the mapping in
 * force; each one it can now read is stored and posted once (by the running Order Desk's workers), in the order
 * the supplier says they happened. PostgreSQL only, like the other operators' commands; on the embedded store
 * the alert's Reprocess button does the same.
 *
 * Exit codes: 0 readable (and, with --headers, signed), or reprocessed; 1 unreadable, a bad signature or a failed
 * run; 2 bad usage or configuration; 3 not available on this deployment (the embedded store).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { pino } from "pino";
import { loadCustomerConfig } from "../config/customer.ts";
import { loadWebhookCheckTarget } from "../config/operations.ts";
import { ConfigError } from "../config.ts";
import { createJobs } from "../jobs/pgboss/adapter.ts";
import { COMMAND_LINE } from "../orders/operations/resolve.ts";
import { createWebhookSecrets } from "../secrets/factory.ts";
import { renderOrderReply } from "../slack/blocks/updates/order-reply.ts";
import { compileEventMapping, describeShape } from "../supplier/event-mapping.ts";
import { WebhookVerificationError } from "../supplier/webhook-signature.ts";
import { verifyDelivery, type WebhookSigning } from "../supplier/webhook-signing.ts";
import { reprocessUnreadable } from "../webhooks/reprocess.ts";
import { parseCommandArgs } from "./args.ts";
import { EXIT_OPS, type OperationsDeps, type OperationsIo, openOperationsStore } from "./operations.ts";

export const EVENTS_USAGE = `Usage: order-desk events check FILE.json [--headers FILE]
       order-desk events reprocess [--since DATE]

  check FILE.json     run a body the supplier sent (or will send) through the customer file's supplierEvents
                      mapping: what Order Desk would store and what the order's thread would say, or which
                      field it cannot find
    --headers FILE    also check its signature: the delivery's headers, as JSON ({"name": "value"}) or as
                      "Name: value" lines; the secrets are WEBHOOK_SECRETS (or WEBHOOK_SECRET_ID)
  reprocess           read the deliveries kept as unreadable again with the mapping in force (PostgreSQL;
                      on the embedded store use Reprocess on their alert in Slack)
    --since DATE      only those received on or after DATE (YYYY-MM-DD or an ISO 8601 time)
Exit codes: 0 readable / done, 1 unreadable, bad signature or failed, 2 bad usage, 3 the embedded store.
`;

const SPEC = {
  name: "events",
  usage: EVENTS_USAGE,
  positionals: true,
  options: { headers: { type: "string" }, since: { type: "string" } },
} as const;

type Parsed =
  | { action: "check"; file: string; headers: string | undefined }
  | { action: "reprocess"; since: Date | undefined };

function validate(
  values: { headers?: string | undefined; since?: string | undefined },
  positionals: readonly string[],
): Parsed | string {
  const [action, file, ...extra] = positionals;
  if (extra.length > 0) return `unexpected ${JSON.stringify(extra.join(" "))}`;
  if (action === "check") {
    if (file === undefined) return "check needs the body's file: order-desk events check FILE.json";
    if (values.since !== undefined) return "--since is for reprocess";
    return { action, file, headers: values.headers };
  }
  if (action === "reprocess") {
    if (file !== undefined) return `reprocess takes no file (got ${JSON.stringify(file)})`;
    if (values.headers !== undefined) return "--headers is for check";
    if (values.since === undefined) return { action, since: undefined };
    const since = new Date(values.since);
    if (!/^\d{4}-\d{2}-\d{2}/.test(values.since) || Number.isNaN(since.getTime())) {
      return `--since ${JSON.stringify(values.since)} is not a date (YYYY-MM-DD or an ISO 8601 time)`;
    }
    return { action, since };
  }
  return `unknown action ${JSON.stringify(action ?? "")}: check or reprocess`;
}

export async function runEvents(
  argv: string[],
  env: Record<string, string | undefined>,
  io: OperationsIo,
  deps: OperationsDeps & { nowSeconds?: () => number } = {},
): Promise<number> {
  const args = parseCommandArgs(SPEC, argv, io);
  if (!args.ok) return args.exitCode;
  const parsed = validate(args.values, args.positionals);
  if (typeof parsed === "string") {
    io.stderr.write(`order-desk events: ${parsed}\n\n${EVENTS_USAGE}`);
    return EXIT_OPS.usage;
  }
  try {
    return parsed.action === "check"
      ? await check(parsed.file, parsed.headers, env, io, deps.nowSeconds)
      : await reprocess(parsed.since, env, io, deps);
  } catch (error) {
    if (!(error instanceof ConfigError) && (error as { code?: unknown }).code !== "CUSTOMER_CONFIG_INVALID") {
      throw error;
    }
    io.stderr.write(`order-desk events: ${(error as Error).message}\n`);
    return EXIT_OPS.usage;
  }
}

/** `{"name": "value"}`, or `Name: value` lines (as copied from a request log); names lower-cased. */
export function parseHeaderFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    const json = JSON.parse(trimmed) as unknown;
    if (json === null || typeof json !== "object" || Array.isArray(json))
      throw new Error("not a JSON object");
    for (const [name, value] of Object.entries(json)) out[name.toLowerCase()] = String(value);
    return out;
  }
  for (const line of trimmed.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    out[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return out;
}

async function checkSignature(
  signing: WebhookSigning,
  headersFile: string,
  raw: Buffer,
  env: Record<string, string | undefined>,
  io: OperationsIo,
  nowSeconds: number,
): Promise<boolean> {
  let headers: Record<string, string>;
  try {
    headers = parseHeaderFile(await readFile(headersFile, "utf8"));
  } catch (error) {
    io.stdout.write(`Signature: cannot read the headers in ${headersFile}: ${(error as Error).message}\n`);
    return false;
  }
  const target = loadWebhookCheckTarget(env);
  const source = await createWebhookSecrets({
    signing,
    secretId: target.secretId,
    secrets: target.secrets,
    ttlMs: target.cacheTtlMs,
    logger: pino({ level: "silent" }),
    clientOptions: {
      ...(target.aws.region && { region: target.aws.region }),
      ...(target.aws.endpoint && { endpoint: target.aws.endpoint }),
    },
  });
  const secrets = await source();
  const input = {
    signing,
    headers,
    rawBody: raw,
    secrets,
    nowSeconds,
    toleranceSeconds: target.toleranceSeconds,
  };
  try {
    verifyDelivery(input);
    io.stdout.write(`Signature: valid (${signing.scheme}).\n`);
    return true;
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    if (error.code !== "stale_timestamp") {
      io.stdout.write(`Signature: NOT valid (${signing.scheme}): ${error.message}\n`);
      return false;
    }
  }
  // A sample is usually older than the tolerance: check the signature as of its own time, and say so.
  try {
    verifyDelivery({ ...input, toleranceSeconds: Number.MAX_SAFE_INTEGER });
    io.stdout.write(
      `Signature: valid (${signing.scheme}); its timestamp is outside ±${target.toleranceSeconds} s of now, so ` +
        "a live delivery with it would be refused as a replay.\n",
    );
    return true;
  } catch (error) {
    io.stdout.write(`Signature: NOT valid (${signing.scheme}): ${(error as Error).message}\n`);
    return false;
  }
}

async function check(
  file: string,
  headersFile: string | undefined,
  env: Record<string, string | undefined>,
  io: OperationsIo,
  clock: (() => number) | undefined,
): Promise<number> {
  const target = loadWebhookCheckTarget(env);
  const customer = await loadCustomerConfig(target.customerConfigPath);
  const { signing, mapping } = customer.supplierEvents;
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch (error) {
    io.stderr.write(`order-desk events: cannot read ${file} (${(error as NodeJS.ErrnoException).code})\n`);
    return EXIT_OPS.usage;
  }
  let signed = true;
  if (headersFile !== undefined) {
    const nowSeconds = clock?.() ?? Math.floor(Date.now() / 1000);
    signed = await checkSignature(signing, headersFile, raw, env, io, nowSeconds);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch (error) {
    io.stdout.write(`Mapping: cannot read it: the body is not valid JSON (${(error as Error).message}).\n`);
    return EXIT_OPS.failed;
  }
  const bodyHash = createHash("sha256").update(raw).digest("hex");
  const mapped = compileEventMapping(mapping).map(json, { bodyHash });
  if (!mapped.ok) {
    const shape = describeShape(json);
    io.stdout.write(
      `Mapping: cannot read it: ${mapped.reason}\n` +
        "It would be kept as unreadable (the admins told once for its shape) and posted nowhere.\n" +
        `Its fields: ${shape.fields.map((f) => `${f.path} (${f.type})`).join(", ")}\n`,
    );
    return EXIT_OPS.failed;
  }
  const event = mapped.event;
  io.stdout.write(`Mapping: readable.\nOrder Desk would store:\n${JSON.stringify(event, null, 2)}\n`);
  const reply = renderOrderReply(
    { id: event.id, type: event.type, occurredAt: new Date(event.occurredAt), payload: event },
    {
      customerReference: "TICKET-1",
      externalDocumentNumber: event.externalDocumentNumber ?? "(its order)",
      request: { shipping: { deliveryAt: "Office" } } as Parameters<typeof renderOrderReply>[1]["request"],
    },
    { timeZone: "UTC", now: new Date(event.occurredAt) },
  );
  io.stdout.write(
    `The order's thread would say (for an order of ticket TICKET-1; with the default updates: milestones, ` +
      `only milestones are posted):\n${reply.text}\n`,
  );
  return signed ? EXIT_OPS.ok : EXIT_OPS.failed;
}

async function reprocess(
  since: Date | undefined,
  env: Record<string, string | undefined>,
  io: OperationsIo,
  deps: OperationsDeps,
): Promise<number> {
  const opened = await openOperationsStore("events reprocess", env, io, deps);
  if (!opened.ok) return opened.exitCode;
  try {
    const customer = await loadCustomerConfig(
      opened.target?.customerConfigPath ?? loadWebhookCheckTarget(env).customerConfigPath,
    );
    // No workers and no taking over of other processes' jobs: it only enqueues the posting jobs and the
    // rewrites of the alerts it closes, which the running Order Desk works.
    const jobs = createJobs({ store: opened.store, owners: false, recoverInterruptedOnStart: false });
    await jobs.start();
    let result: Awaited<ReturnType<typeof reprocessUnreadable>>;
    try {
      result = await reprocessUnreadable(
        { store: opened.store, jobs, mapper: compileEventMapping(customer.supplierEvents.mapping) },
        { ...(since && { since }), by: COMMAND_LINE, via: "order-desk events reprocess" },
      );
    } finally {
      await jobs.stop({ graceMs: 0 });
    }
    io.stdout.write(
      `Looked at ${result.examined} unreadable deliver${result.examined === 1 ? "y" : "ies"}: ` +
        `${result.read} now read and queued for posting, ${result.duplicates} already stored, ` +
        `${result.stillUnreadable} still unreadable.\n`,
    );
    for (const { shapeKey, reason } of result.reasons) {
      io.stdout.write(`  still unreadable (shape ${shapeKey}): ${reason}\n`);
    }
    if (result.resolved.length > 0) {
      io.stdout.write(
        `${result.resolved.length} alert${result.resolved.length === 1 ? "" : "s"} closed as reprocessed.\n`,
      );
    }
    return EXIT_OPS.ok;
  } finally {
    await opened.close();
  }
}
