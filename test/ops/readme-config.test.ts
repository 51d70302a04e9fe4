import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { VARIABLES } from "../../src/config.ts";

const README = new URL("../../README.md", import.meta.url);

interface Row {
  name: string;
  /** The default as written, or null for "—" (no default). */
  default: string | null;
}

/**
 * The configuration table: the Markdown table (consecutive lines starting with `|`) that has a row for
 * `SLACK_BOT_TOKEN`. Each data row's first cell is the variable in backticks, its second cell the default in
 * backticks or "—".
 */
function configurationTable(markdown: string): Row[] {
  const tables: string[][] = [];
  let current: string[] | null = null;
  for (const line of markdown.split("\n")) {
    if (line.trimStart().startsWith("|")) {
      current ??= [];
      current.push(line.trim());
    } else if (current) {
      tables.push(current);
      current = null;
    }
  }
  if (current) tables.push(current);
  const table = tables.find((t) => t.some((line) => /^\|\s*`SLACK_BOT_TOKEN`\s*\|/.test(line)));
  if (!table) throw new Error("README.md has no table with a row for `SLACK_BOT_TOKEN`");
  // Header, then the |---|---| separator, then one row per variable.
  return table.slice(2).map((line) => {
    const cells = line
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[0] ?? "")?.[1];
    const def = cells[1] ?? "";
    const quoted = /^`([^`]*)`$/.exec(def)?.[1];
    if (!name || (quoted === undefined && def !== "—")) {
      throw new Error(`README.md configuration row is not "| \`NAME\` | \`default\` or — | …": ${line}`);
    }
    return { name, default: quoted ?? null };
  });
}

describe("README.md's configuration table", () => {
  it("lists exactly the variables of src/config.ts, in one table, each with its default", () => {
    expect(existsSync(README), "README.md is missing").toBe(true);
    const rows = configurationTable(readFileSync(README, "utf8"));
    const documented = rows.map((r) => r.name);
    expect(new Set(documented).size, "a variable is listed twice").toBe(documented.length);

    const expected = Object.entries(VARIABLES)
      .map(([name, spec]) => ({ name, default: "default" in spec ? spec.default : null }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect([...rows].sort((a, b) => a.name.localeCompare(b.name))).toEqual(expected);
  });
});

describe(".env.example", () => {
  it("names only variables Order Desk reads, and leaves a real installation's required ones to fill in", () => {
    const text = readFileSync(new URL("../../.env.example", import.meta.url), "utf8");
    const names = [...text.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1] as string);
    expect(names.filter((name) => !(name in VARIABLES))).toEqual([]);
    const set = [...text.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    for (const name of ["SLACK_BOT_TOKEN", "SUPPLIER_BASE_URL", "SUPPLIER_API_KEY_SECRET_ID", "AWS_REGION"]) {
      expect(set, name).toContain(name);
    }
    // The one example the docs use: docs/secrets.md creates this secret.
    expect(text).toContain("SUPPLIER_API_KEY_SECRET_ID=order-desk/supplier-api-key\n");
    expect(readFileSync(new URL("../../docs/secrets.md", import.meta.url), "utf8")).toContain(
      "create-secret --name order-desk/supplier-api-key",
    );
  });
});
