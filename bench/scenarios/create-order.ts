/**
 * `POST /orders/create` with a valid order whose externalDocumentNumber is unique per request, so a faithful
 * supplier (which refuses duplicates) accepts every one of them.
 */
import { randomBytes } from "node:crypto";
import type autocannon from "autocannon";
import { benchOrder } from "../lib/fixtures.ts";

export interface CreateOrderScenarioOptions {
  apiKey: string;
}

export default function createOrderScenario(options: unknown): autocannon.Request[] {
  const { apiKey } = options as CreateOrderScenarioOptions;
  // A prefix per process keeps warm-up, rounds and re-runs against a persistent sandbox from colliding.
  const prefix = `BENCH-${randomBytes(4).toString("hex")}`;
  let sequence = 0;
  return [
    {
      method: "POST",
      path: "/orders/create",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      setupRequest: (request) => {
        sequence += 1;
        return { ...request, body: JSON.stringify(benchOrder(`${prefix}-${sequence}`)) };
      },
    },
  ];
}
