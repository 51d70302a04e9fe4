/**
 * The supplier client as the placement job sees it, timed and counted: the latency of each create call by outcome
 * (`placed` or the error's code) and the retries the client made inside it.
 */
import type { Metrics } from "./metrics.ts";
import type { SupplierClient } from "./supplier/client.ts";

export type MeteredSupplier = Pick<SupplierClient, "createOrder" | "environment">;

export function meteredSupplier(
  client: MeteredSupplier,
  metrics: Pick<Metrics, "supplierLatency" | "supplierRetries">,
): MeteredSupplier {
  return {
    environment: client.environment,
    async createOrder(request, callOptions) {
      const end = metrics.supplierLatency.startTimer();
      try {
        const result = await client.createOrder(request, callOptions);
        end({ outcome: "placed" });
        if (result.attempts > 1) metrics.supplierRetries.inc(result.attempts - 1);
        return result;
      } catch (error) {
        end({ outcome: (error as { code?: string }).code ?? "UNKNOWN" });
        const attempts = (error as { attempts?: unknown }).attempts;
        if (typeof attempts === "number" && attempts > 1) metrics.supplierRetries.inc(attempts - 1);
        throw error;
      }
    },
  };
}
