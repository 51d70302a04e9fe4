import type { Jobs } from "../jobs/index.ts";
import type { Metrics } from "../metrics.ts";
import type { Route } from "./server.ts";

/**
 * `GET /metrics` in the Prometheus text format. Queue depth and the oldest job's age are read when scraped,
 * so they are never staler than the scrape itself.
 */
export function metricsRoute(options: { metrics: Metrics; jobs: Pick<Jobs, "stats"> }): Route {
  const { metrics, jobs } = options;
  return {
    path: "/metrics",
    methods: ["GET"],
    async handler(_req, res, { logger }) {
      try {
        const stats = await jobs.stats();
        for (const [queue, s] of Object.entries(stats)) {
          metrics.queueDepth.set({ queue }, s.ready + s.scheduled + s.active);
          metrics.oldestJobAgeSeconds.set({ queue }, (s.oldestReadyAgeMs ?? 0) / 1000);
        }
      } catch (error) {
        // The other metrics are still worth serving when the queue cannot be read.
        logger.warn({ err: error }, "could not read queue statistics for /metrics");
      }
      const body = await metrics.registry.metrics();
      res.writeHead(200, { "content-type": metrics.registry.contentType }).end(body);
    },
  };
}
