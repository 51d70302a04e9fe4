/**
 * The customer file (ORDER_DESK_CONFIG): catalog, bundles, profiles, who may order. Loaded by the same code
 * Order Desk starts with, so every problem it would refuse to start with shows here first, plus the profiles
 * whose orders would be refused because they name the other supplier environment.
 */
import { type CustomerConfig, CustomerConfigError, loadCustomerConfig } from "../../config/customer.ts";
import type { SupplierEnvironment } from "../../supplier/keys.ts";
import { type CheckOutcome, describeError, fail, ok } from "../check.ts";

export type CustomerConfigLoader = (path: string) => Promise<CustomerConfig>;

export interface CustomerConfigCheck {
  outcome: CheckOutcome;
  config: CustomerConfig | null;
}

export async function checkCustomerConfig(
  path: string,
  options: { environment?: SupplierEnvironment; loader?: CustomerConfigLoader } = {},
): Promise<CustomerConfigCheck> {
  let config: CustomerConfig;
  try {
    config = await (options.loader ?? loadCustomerConfig)(path);
  } catch (error) {
    const detail =
      error instanceof CustomerConfigError
        ? `${error.problems.length} problem${error.problems.length === 1 ? "" : "s"}: ${error.problems.join("; ")}`
        : describeError(error);
    return { outcome: fail(`${path}: ${detail}`), config: null };
  }
  const summary =
    `${path}: ${config.profiles.length} profile${config.profiles.length === 1 ? "" : "s"}, ` +
    `${config.catalog.length} catalog items, ${config.bundles.length} bundles`;
  const { environment } = options;
  const elsewhere = environment ? config.profiles.filter((p) => p.supplier.environment !== environment) : [];
  if (environment && elsewhere.length > 0) {
    const names = elsewhere.map((p) => `"${p.name}" (${p.supplier.environment})`).join(", ");
    return {
      outcome: fail(
        `${summary}; profile${elsewhere.length === 1 ? "" : "s"} ${names} ${elsewhere.length === 1 ? "is" : "are"} ` +
          `not for SUPPLIER_ENVIRONMENT=${environment}, so ${elsewhere.length === 1 ? "its" : "their"} orders are ` +
          "refused: fix the profile's supplier.environment or the deployment's supplier settings",
      ),
      config,
    };
  }
  return { outcome: ok(summary), config };
}
