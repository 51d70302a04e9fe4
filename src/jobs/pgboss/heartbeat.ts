/**
 * Touches the jobs this process runs, so pg-boss's heartbeat (the queue's `heartbeatSeconds`) takes back only
 * the jobs of a process that stopped touching them. pg-boss touches for `work()`; our own fetch loop
 * (worker.ts) does it here. A quarter of the heartbeat between touches: three may be late or fail before a job
 * of a live process is taken back (and even then owners.ts keeps a second process from running it).
 */
import type { Logger } from "pino";

export interface HeartbeatOptions {
  /** null: the queues have no heartbeat, nothing to touch. */
  heartbeatSeconds: number | null;
  running(): { queue: string; ids: string[] }[];
  touch(queue: string, ids: string[]): Promise<void>;
  logger: Logger;
}

export interface Heartbeat {
  start(): void;
  stop(): Promise<void>;
}

export function createHeartbeat(options: HeartbeatOptions): Heartbeat {
  const { heartbeatSeconds } = options;
  let timer: NodeJS.Timeout | null = null;
  let beating: Promise<void> | null = null;

  async function beat(): Promise<void> {
    for (const { queue, ids } of options.running()) {
      if (ids.length === 0) continue;
      await options.touch(queue, ids).catch((error: unknown) => {
        options.logger.warn(
          { err: error, queue },
          "touching running jobs failed; trying again at the next beat",
        );
      });
    }
  }

  return {
    start() {
      if (heartbeatSeconds === null || timer) return;
      timer = setInterval(
        () => {
          beating ??= beat().finally(() => {
            beating = null;
          });
        },
        (heartbeatSeconds * 1000) / 4,
      );
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await beating;
    },
  };
}
