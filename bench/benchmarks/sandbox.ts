/**
 * (issue 3) The supplier sandbox's create-order throughput and tail latency beside a bare node:http server
 * answering the same JSON. The sandbox runs through our real CLI (`order-desk sandbox`), as users run it.
 */

import { compareServers, describeLoad, describeTail } from "../lib/compare.ts";
import { BENCH_TEST_KEY } from "../lib/fixtures.ts";
import type { Benchmark } from "../lib/types.ts";

const CONNECTIONS = 16;

export const benchmark: Benchmark = {
  name: "sandbox",
  description: `sandbox POST /orders/create vs bare node:http answering the same JSON, ${CONNECTIONS} connections`,
  requires: ["src/sandbox/cli.ts"],
  rows: [
    {
      id: "rate",
      metric: "create-order throughput",
      unit: "req/s",
      baselineLabel: "bare node:http",
      bounds: [{ on: "ratio", op: ">=", value: 0.5 }],
    },
    {
      id: "p99",
      metric: "create-order latency p99",
      unit: "ms",
      baselineLabel: "bare node:http",
      // At least half the baseline's speed: ours may take up to twice its time.
      bounds: [{ on: "ratio", op: "<=", value: 2 }],
    },
  ],
  async run(ctx) {
    const result = await compareServers(
      ctx,
      {
        baseline: { script: "bench/servers/bare-supplier.ts" },
        ours: {
          script: "bin/order-desk.js",
          options: {
            args: [
              "sandbox",
              ...["--host", "127.0.0.1", "--port", "0", "--api-key", BENCH_TEST_KEY, "--log-level", "silent"],
            ],
            readyPattern: /sandbox listening on (https?:\/\/\S+)/,
          },
        },
      },
      {
        connections: CONNECTIONS,
        scenario: "create-order",
        options: () => ({ apiKey: BENCH_TEST_KEY }),
        rounds: ctx.durations.tailRounds,
      },
    );
    const note = `${describeLoad("sandbox", result.ours)}; ${describeLoad("bare", result.baseline)}`;
    const tail = [describeTail("sandbox", result.ours), describeTail("bare", result.baseline)]
      .filter(Boolean)
      .join("; ");
    const failed = result.ours.failed > 0;
    return {
      rate: {
        ours: result.ours.rate,
        baseline: result.baseline.rate,
        note: failed ? `${note} — failures make these figures invalid` : note,
        failed,
      },
      p99: {
        ours: result.ours.latency.p99,
        baseline: result.baseline.latency.p99,
        ...(tail && { note: tail }),
        failed,
      },
    };
  },
};
