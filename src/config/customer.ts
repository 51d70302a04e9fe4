/**
 * Loads the customer file once at start-up and fails listing every problem with its path
 * (`profiles[1].invoice.id: must not be empty`), so one edit fixes them all.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
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
      `The customer file ${source} has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}; ` +
        "fix it and start again (see docs/configuration.md):\n" +
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

/** The line a syntax error points at, quoted, for the reader to find it. */
function quoteLine(text: string, line: number): string {
  const shown = text.split("\n")[line - 1]?.trimEnd() ?? "";
  return shown.trim() === "" ? "" : `: ${JSON.stringify(shown.trim().slice(0, 120))}`;
}

/** A `.json` file is read as JSON, with JSON's errors; anything else as YAML (of which JSON is a part). */
function parseText(text: string, source: string): unknown {
  if (/\.json$/i.test(source)) {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      // Node's message quotes the whole text (and, in newer versions, names a position): keep what went wrong,
      // and find the line from the YAML parser, which reads JSON too.
      const message = (error as Error).message;
      const what = message
        .replace(/, "[\s\S]*" is not valid JSON$/, "")
        .replace(/\s*(in JSON )?at position \d+[\s\S]*$/, "");
      const position = /at position (\d+)/.exec(message)?.[1];
      const line =
        position !== undefined
          ? text.slice(0, Number(position)).split("\n").length
          : parseDocument(text, { prettyErrors: true }).errors[0]?.linePos?.[0]?.line;
      throw new CustomerConfigError(source, [
        `not valid JSON${line ? ` at line ${line}` : ""}: ${what}${line ? quoteLine(text, line) : ""}`,
      ]);
    }
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new CustomerConfigError(
      source,
      doc.errors.map((e) => {
        const line = e.linePos?.[0]?.line;
        const what = e.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? e.code;
        return `not valid YAML${line ? ` at line ${line}` : ""}: ${what}${line ? quoteLine(text, line) : ""}`;
      }),
    );
  }
  return doc.toJS();
}

/**
 * `supplierEvents: { file: NAME }`: the block is read from that file (YAML, or JSON for a `.json` file), so a
 * mapping worked out with the supplier can be kept and replaced on its own. Returns the file's problems, if any.
 */
function includeSupplierEvents(config: unknown, readNamed: ((name: string) => string) | undefined): string[] {
  const block = (config as { supplierEvents?: unknown } | null)?.supplierEvents;
  if (block === null || typeof block !== "object" || !("file" in block)) return [];
  const { file, ...rest } = block as { file: unknown };
  if (typeof file !== "string" || file.trim() === "") return ["supplierEvents.file: must name a file"];
  if (Object.keys(rest).length > 0) {
    return [
      `supplierEvents: with file, keep every other key (${Object.keys(rest).join(", ")}) in ${file} instead`,
    ];
  }
  if (!readNamed) return [`supplierEvents.file: ${file} cannot be read from here (no file system)`];
  let text: string;
  try {
    text = readNamed(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return [`supplierEvents.file: ${file} cannot be read (${code === "ENOENT" ? "no such file" : code})`];
  }
  try {
    (config as { supplierEvents: unknown }).supplierEvents = parseText(text, file) ?? {};
  } catch (error) {
    if (!(error instanceof CustomerConfigError)) throw error;
    return error.problems.map((p) => `supplierEvents.file: ${file}: ${p}`);
  }
  return [];
}

/**
 * Parses and validates the file's text (YAML, or JSON for a `.json` file); `source` names the file in messages.
 * `readNamed` reads a file the text names (`supplierEvents.file`), relative to it.
 */
export function parseCustomerConfig(
  text: string,
  source = "order-desk.config.yml",
  readNamed?: (name: string) => string,
): CustomerConfig {
  const data = parseText(text, source);
  const included = includeSupplierEvents(data, readNamed);
  if (included.length > 0) throw new CustomerConfigError(source, included);
  // With the input on each issue, a value of the wrong type ("yes" for a boolean) is told apart from a missing one.
  const parsed = customerConfigSchema.safeParse(data, { reportInput: true });
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
  return parseCustomerConfig(text, path, (name) => readFileSync(resolve(dirname(path), name), "utf8"));
}
