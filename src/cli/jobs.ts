/**
 * `order-desk jobs list --failed [--queue NAME] [--limit N] [--json]`
 * `order-desk jobs retry ID | --all-failed [--queue NAME]`
 *
 * For deployments on PostgreSQL: see the jobs that failed for good, and run them once more. A failed placement's
 * order is put back to `queued` first (the job places only waiting orders); an order the supplier refused is
 * left for "Fix and resubmit" in Slack, since the same request would be refused again. On the embedded store
 * the commands refuse and name the Slack actions that do the same. Exit codes: 0 done, 1 something failed,
 * 2 bad usage, 3 not available on this deployment (the embedded store).
 */
import {
  type FailedJob,
  isQueueName,
  type Jobs,
  QUEUE_NAMES,
  QUEUES,
  type QueueName,
} from "../jobs/index.ts";
import { createJobs } from "../jobs/pgboss/adapter.ts";
import { isRejected } from "../orders/model/order.ts";
import { resolveRetriedFromCommandLine } from "../orders/operations/retried-elsewhere.ts";
import type { Queryable, Store } from "../store/db.ts";
import { requeueFailedOrder } from "../store/repositories/operator-actions.ts";
import { getOrder } from "../store/repositories/orders.ts";
import { parseCommandArgs } from "./args.ts";
import { EXIT_OPS, type OperationsDeps, type OperationsIo, openOperationsStore } from "./operations.ts";

export const JOBS_USAGE = `Usage: order-desk jobs list --failed [--queue NAME] [--limit N] [--json]
       order-desk jobs retry ID | --all-failed [--queue NAME]

For deployments on PostgreSQL (DATABASE_URL). Queues: ${QUEUE_NAMES.join(", ")}.
  list --failed   the jobs that failed for good, newest first (default limit 50)
  retry ID        run that failed job once more
  retry --all-failed   every failed job (of --queue, if given) once more
A failed placement's order goes back to "queued" first; an order the supplier refused is skipped (fix and
resubmit it in Slack). Exit codes: 0 done, 1 a retry failed, 2 bad usage, 3 the embedded store (use Slack).
`;

interface Parsed {
  action: "list" | "retry";
  id: string | undefined;
  failed: boolean;
  allFailed: boolean;
  queue: QueueName | undefined;
  limit: number;
  json: boolean;
}

type Values = { failed?: boolean; "all-failed"?: boolean; queue?: string; limit?: string; json?: boolean };

function validate(values: Values, positionals: string[]): Parsed | string {
  const [action, id, ...extra] = positionals;
  if (action !== "list" && action !== "retry") return `unknown action ${JSON.stringify(action ?? "")}`;
  if (extra.length > 0) return `unexpected ${JSON.stringify(extra.join(" "))}`;
  const queue = values.queue;
  if (queue !== undefined && !isQueueName(queue)) {
    return `unknown queue ${JSON.stringify(queue)}: one of ${QUEUE_NAMES.join(", ")}`;
  }
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    return "--limit must be a whole number, 1 to 10000";
  if (action === "list" && !values.failed) return "list needs --failed (the only list there is)";
  if (action === "list" && id !== undefined) return "list takes no job id";
  if (action === "retry" && (id === undefined) === !values["all-failed"]) {
    return "retry needs a job id or --all-failed (not both)";
  }
  if (id !== undefined && !/^[0-9a-f-]{36}$/i.test(id))
    return `${JSON.stringify(id)} is not a job id (a UUID)`;
  return {
    action,
    id,
    failed: values.failed === true,
    allFailed: values["all-failed"] === true,
    queue,
    limit,
    json: values.json === true,
  };
}

const SPEC = {
  name: "jobs",
  usage: JOBS_USAGE,
  positionals: true,
  options: {
    failed: { type: "boolean" },
    "all-failed": { type: "boolean" },
    queue: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  },
} as const;

export async function runJobs(
  argv: string[],
  env: Record<string, string | undefined>,
  io: OperationsIo,
  deps: OperationsDeps = {},
): Promise<number> {
  const args = parseCommandArgs(SPEC, argv, io);
  if (!args.ok) return args.exitCode;
  const parsed = validate(args.values, args.positionals);
  if (typeof parsed === "string") {
    io.stderr.write(`order-desk jobs: ${parsed}\n\n${JOBS_USAGE}`);
    return EXIT_OPS.usage;
  }
  const opened = await openOperationsStore("jobs", env, io, deps);
  if (!opened.ok) return opened.exitCode;
  try {
    // Started without workers and without taking over other processes' jobs: it reads, retries, and enqueues the
    // rewrite of each alert it closes, which the running Order Desk works.
    const jobs = createJobs({ store: opened.store, owners: false, recoverInterruptedOnStart: false });
    await jobs.start();
    try {
      if (parsed.action === "list") return await list(jobs, parsed, io);
      return await retry(jobs, opened.store, parsed, io);
    } finally {
      await jobs.stop({ graceMs: 0 });
    }
  } finally {
    await opened.close();
  }
}

function orderIdOf(job: FailedJob): string {
  const id = (job.data as { orderId?: unknown } | null)?.orderId;
  return typeof id === "string" ? id : "";
}

/** The failure in one line: the message (or code) the job ended with. */
function errorLine(error: unknown): string {
  const e = (error ?? {}) as { message?: unknown; code?: unknown };
  const text = typeof e.message === "string" ? e.message : typeof e.code === "string" ? e.code : "";
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat;
}

async function list(jobs: Jobs, parsed: Parsed, io: OperationsIo): Promise<number> {
  const failed = await jobs.listFailed({ ...(parsed.queue && { queue: parsed.queue }), limit: parsed.limit });
  if (parsed.json) {
    io.stdout.write(`${JSON.stringify(failed)}\n`);
    return EXIT_OPS.ok;
  }
  if (failed.length === 0) {
    io.stdout.write(`No failed jobs${parsed.queue ? ` in ${parsed.queue}` : ""}.\n`);
    return EXIT_OPS.ok;
  }
  io.stdout.write("ID\tQUEUE\tFAILED AT\tRUNS\tORDER\tERROR\n");
  for (const job of failed) {
    const at = job.failedAt ? new Date(job.failedAt).toISOString() : "";
    io.stdout.write(
      `${job.id}\t${job.queue}\t${at}\t${job.runs}\t${orderIdOf(job)}\t${errorLine(job.error)}\n`,
    );
  }
  io.stdout.write(`${failed.length} failed job${failed.length === 1 ? "" : "s"}.\n`);
  return EXIT_OPS.ok;
}

/** Why a failed placement's order cannot go back to `queued`: it is gone, refused, or not failed any more. */
async function whyNotRequeued(store: Queryable, orderId: string): Promise<string> {
  const now = await getOrder(store, orderId);
  if (!now) return "its order does not exist";
  if (isRejected(now)) return "the supplier refused the order: fix and resubmit it in Slack";
  return `the order is ${now.status}, no longer failed (retried, resubmitted or placed meanwhile)`;
}

/** Thrown inside the transaction to roll the order's requeue back when its job cannot be retried. */
class JobNotFailed extends Error {}

async function retryOne(
  jobs: Jobs,
  store: Store,
  job: { id: string; queue: QueueName; data: unknown },
  io: OperationsIo,
): Promise<"retried" | "skipped" | "failed"> {
  const orderId =
    job.queue === QUEUES.placeOrder ? (job.data as { orderId?: unknown } | null)?.orderId : undefined;
  try {
    // A failed placement's order goes back to `queued` (the statement "Retry now" uses) and its job is retried
    // in one transaction: neither happens without the other.
    const skipped = await store.transaction(async (tx) => {
      if (typeof orderId === "string" && !(await requeueFailedOrder(tx, orderId)))
        return whyNotRequeued(tx, orderId);
      if (!(await jobs.retry(job.queue, job.id, { tx }))) throw new JobNotFailed();
      // Its admin alert's item is resolved and the alert's rewrite enqueued: Retry now there answers that it was
      // retried from here, and the running Order Desk shows it on the alert.
      if (typeof orderId === "string") await resolveRetriedFromCommandLine(jobs, tx, orderId, job.id);
      return null;
    });
    if (skipped !== null) {
      io.stdout.write(`skipped ${job.id} (${job.queue}): ${skipped}\n`);
      return "skipped";
    }
  } catch (error) {
    if (!(error instanceof JobNotFailed)) throw error;
    io.stderr.write(`could not retry ${job.id} (${job.queue}): it is no longer failed\n`);
    return "failed";
  }
  io.stdout.write(`retried ${job.id} (${job.queue})\n`);
  return "retried";
}

async function retry(jobs: Jobs, store: Store, parsed: Parsed, io: OperationsIo): Promise<number> {
  const queues = parsed.queue ? [parsed.queue] : QUEUE_NAMES;
  let targets: Array<{ id: string; queue: QueueName; data: unknown }>;
  if (parsed.id !== undefined) {
    const found = [];
    for (const queue of queues) {
      const job = await jobs.getJob(queue, parsed.id);
      if (job) found.push(job);
    }
    const job = found[0];
    if (!job) {
      io.stderr.write(`order-desk jobs: no job ${parsed.id}${parsed.queue ? ` in ${parsed.queue}` : ""}\n`);
      return EXIT_OPS.failed;
    }
    if (job.state !== "failed") {
      io.stderr.write(
        `order-desk jobs: job ${job.id} (${job.queue}) is ${job.state}, not failed: nothing to retry\n`,
      );
      return EXIT_OPS.failed;
    }
    targets = [job];
  } else {
    targets = await jobs.listFailed({ ...(parsed.queue && { queue: parsed.queue }), limit: 10_000 });
  }
  const counts = { retried: 0, skipped: 0, failed: 0 };
  for (const job of targets) counts[await retryOne(jobs, store, job, io)] += 1;
  io.stdout.write(
    `${counts.retried} retried, ${counts.skipped} skipped, ${counts.failed} could not be retried.\n`,
  );
  return counts.failed > 0 ? EXIT_OPS.failed : EXIT_OPS.ok;
}
