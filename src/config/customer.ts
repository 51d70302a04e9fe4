/**
 * Loads the customer file once at start-up and fails listing every problem with its path
 * (`profiles[1].invoice.id: must not be empty`), so one edit fixes them all.
 */
import { readFile } from "node:fs/promises";
import { parseDocument } from "yaml";
import type { z } from "zod";
import { type CustomerConfig, customerConfigSchema } from "./customer-schema.ts";

export * from "./customer-schema.ts";

export class CustomerConfigError extends Error {
  readonly code = "CUSTOMER_CONFIG_INVALID";
  override readonly cause: unknown;
  /** One line per problem: `path: what is wrong`. */
  readonly problems: readonly string[];

  constructor(source: string, problems: string[], options: { cause?: unknown } = {}) {
    super(
      `The customer file ${source} has ${problems.length} problem(s); fix them and start again (see docs/configuration.md):\n` +
        problems.map((p) => `  - ${p}`).join("\n"),
    );
    this.name = "CustomerConfigError";
    this.problems = problems;
    this.cause = options.cause;
  }
}

/** `["profiles", 1, "invoice", "id"]` → `profiles[1].invoice.id`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += (out ? "." : "") + String(segment);
  }
  return out || "(file)";
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = formatPath(issue.path);
  if (issue.code === "unrecognized_keys") {
    return `${path}: unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(", ")} (a typo? see docs/configuration.md)`;
  }
  if (issue.code === "invalid_type" && issue.input === undefined) return `${path}: required`;
  return `${path}: ${issue.message}`;
}

/** Parses and validates the YAML text; `source` names the file in messages. */
export function parseCustomerConfig(text: string, source = "order-desk.config.yml"): CustomerConfig {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new CustomerConfigError(
      source,
      doc.errors.map((e) => `YAML: ${e.message.split("\n")[0]}`),
    );
  }
  // With the input on each issue, a value of the wrong type ("yes" for a boolean) is told apart from a missing one.
  const parsed = customerConfigSchema.safeParse(doc.toJS(), { reportInput: true });
  if (!parsed.success) throw new CustomerConfigError(source, parsed.error.issues.map(describeIssue));
  return parsed.data;
}

export async function loadCustomerConfig(path: string): Promise<CustomerConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CustomerConfigError(
      path,
      [
        code === "ENOENT"
          ? "the file does not exist: copy examples/order-desk.config.yml and set ORDER_DESK_CONFIG to its path"
          : `the file cannot be read (${code ?? "unknown error"})`,
      ],
      { cause: error },
    );
  }
  return parseCustomerConfig(text, path);
}
