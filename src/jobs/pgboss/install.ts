/**
 * pg-boss's schema and our queues, at start-up: a pg-boss 10 schema is set aside first and its jobs carried into
 * the new one once the queues exist (carry-over.ts). On PostgreSQL the caller runs this under the start-up lock.
 */
import type { PgBoss, Queue } from "pg-boss";
import type { Logger } from "pino";
import type { Store } from "../../store/db.ts";
import { QUEUE_NAMES, type QueueName, type QueuePolicy } from "../queues.ts";
import { copyAside, setAside } from "./carry-over.ts";

type QueueSettings = Pick<
  Queue,
  "policy" | "retryLimit" | "retryDelay" | "retryBackoff" | "expireInSeconds" | "deleteAfterSeconds"
> & { heartbeatSeconds?: number | null | undefined };

function samePolicy(current: QueueSettings, wanted: QueueSettings): boolean {
  return (
    current.policy === wanted.policy &&
    current.retryLimit === wanted.retryLimit &&
    current.retryDelay === wanted.retryDelay &&
    current.retryBackoff === wanted.retryBackoff &&
    current.expireInSeconds === wanted.expireInSeconds &&
    current.deleteAfterSeconds === wanted.deleteAfterSeconds &&
    (current.heartbeatSeconds ?? null) === (wanted.heartbeatSeconds ?? null)
  );
}

export interface InstallOptions {
  store: Store;
  boss: PgBoss;
  schema: string;
  policies: Record<QueueName, QueuePolicy>;
  /** How long completed and failed jobs stay (failed ones listed by `order-desk jobs list --failed`). */
  deleteAfterSeconds: number;
  /** pg-boss's heartbeat for our queues, or null for none. */
  heartbeatSeconds: number | null;
  logger: Logger;
}

export async function install(options: InstallOptions): Promise<void> {
  const { store, boss, schema, policies, logger } = options;
  await setAside(store, schema, logger);
  await boss.start();
  // One read on a usual start: a queue is created only when missing and updated only when its policy changed.
  // (Creating and updating each queue every time took ≈ 0.25 s of a 1–2 s embedded start.)
  const existing = new Map((await boss.getQueues()).map((q) => [q.name, q]));
  for (const queue of QUEUE_NAMES) {
    const p = policies[queue];
    const settings = {
      policy: "standard" as const,
      retryLimit: p.retryLimit,
      retryDelay: p.retryDelaySeconds,
      retryBackoff: p.retryBackoff,
      expireInSeconds: p.expireInSeconds,
      deleteAfterSeconds: options.deleteAfterSeconds,
    };
    const heartbeat = options.heartbeatSeconds;
    const current = existing.get(queue);
    if (!current) {
      await boss.createQueue(queue, {
        ...settings,
        ...(heartbeat !== null && { heartbeatSeconds: heartbeat }),
      });
    } else if (!samePolicy(current, { ...settings, heartbeatSeconds: heartbeat ?? undefined })) {
      const { policy: _fixed, ...changeable } = settings;
      await boss.updateQueue(queue, { ...changeable, heartbeatSeconds: heartbeat });
    }
  }
  await copyAside(store, schema, logger);
}
