import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import {
  CustomerConfigError,
  DEFAULT_EDN_PATTERN,
  loadCustomerConfig,
  parseCustomerConfig,
} from "../../src/config/customer.ts";
import { updatesFor } from "../../src/orders/updates/verbosity.ts";

const EXAMPLE = new URL("../../examples/order-desk.config.yml", import.meta.url).pathname;

function problems(yaml: string): string[] {
  try {
    parseCustomerConfig(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(CustomerConfigError);
    return [...(error as CustomerConfigError).problems];
  }
  throw new Error("expected the file to be refused");
}

const MINIMAL = `
adminChannel: C0ITADMIN
catalog:
  - { itemNumber: LAP-1, name: Laptop, category: Laptops, keywords: [laptop] }
profiles:
  - name: Acme
    channels: [C0HELPDESK]
    invoice: { id: INV-1 }
    allowedUsers: [U0AGENT01]
`;

describe("customer config", () => {
  it("loads the shipped example with its catalog, bundles and profiles", async () => {
    const config = await loadCustomerConfig(EXAMPLE);
    expect(config.profiles.map((p) => p.name)).toEqual(["Acme EU", "Acme US"]);
    expect(config.profiles[1]?.consignee).toEqual({ id: "CONS-ACME-US-DC" });
    expect(config.bundles[0]?.name).toBe("Remote starter kit");
    const customer = createCustomer(config);
    expect(customer.profilesForChannel("C0HELPDESK").map((p) => p.name)).toEqual(["Acme EU", "Acme US"]);
    expect(customer.searchItems("wireless").map((i) => i.itemNumber)).toEqual(["KB-WL-US", "MOUSE-WL"]);
    expect(customer.bundle("  remote STARTER kit ")?.lines).toHaveLength(6);
  });

  it("fills the defaults: order type New, test environment, Jira and #123 ticket ids, {ticket}-{seq}", () => {
    const config = parseCustomerConfig(MINIMAL);
    const profile = config.profiles[0]!;
    expect(profile.orderType).toBe("New");
    expect(profile.supplier.environment).toBe("test");
    expect(profile.consignee).toBeNull();
    expect(config.externalDocumentNumber.pattern).toBe(DEFAULT_EDN_PATTERN);
    const ticket = createCustomer(config).ticketIdPattern;
    for (const ok of ["ABC-123", "IT2-9", "#123"]) expect(ticket.test(ok)).toBe(true);
    for (const bad of ["abc-123", "ABC-", "#", "123", "ABC-0"]) expect(ticket.test(bad)).toBe(false);
  });

  it("leaves Workflow Builder orders off unless a profile says allowWorkflows: true, and refuses anything but a boolean", async () => {
    expect(parseCustomerConfig(MINIMAL).profiles[0]?.allowWorkflows).toBe(false);
    const example = await loadCustomerConfig(EXAMPLE);
    expect(example.profiles.map((p) => [p.name, p.allowWorkflows])).toEqual([
      ["Acme EU", true],
      ["Acme US", false],
    ]);
    expect(problems(`${MINIMAL}    allowWorkflows: "yes"\n`)).toEqual([
      "profiles[0].allowWorkflows: must be true or false",
    ]);
    expect(problems(`${MINIMAL}    allowWorkflow: true\n`)).toEqual([
      expect.stringMatching(/^profiles\[0\]: unknown key\(s\) "allowWorkflow"/),
    ]);
  });

  it("shows milestones in threads by default; a profile may choose every update, and a typo is refused", () => {
    const byDefault = parseCustomerConfig(MINIMAL);
    expect(byDefault.updates).toBe("milestones");
    expect(updatesFor(byDefault, "Acme")).toBe("milestones");

    const chatty = parseCustomerConfig(
      `${MINIMAL.replace("    allowedUsers: [U0AGENT01]\n", "    allowedUsers: [U0AGENT01]\n    updates: all\n")}`,
    );
    expect(updatesFor(chatty, "Acme")).toBe("all");
    const quietTop = parseCustomerConfig(`updates: all\n${MINIMAL}`);
    expect(updatesFor(quietTop, "Acme")).toBe("all");
    // An order of a profile since removed follows the top-level setting.
    expect(updatesFor(quietTop, "Gone")).toBe("all");

    expect(problems(`updates: everything\n${MINIMAL}`)).toEqual([
      expect.stringMatching(/^updates: must be milestones \(the default\) or all/),
    ]);
  });

  it("lists every problem with its path, unknown keys included", () => {
    const list = problems(`
adminChannel: general
catalog:
  - { itemNumber: LAP-1, name: Laptop }
  - { itemNumber: LAP-1, name: Laptop again }
bundles:
  - name: Kit
    lines: [{ itemNumber: NOPE-1, quantity: 0 }]
profiles:
  - name: Acme
    channels: [helpdesk]
    invoice: { id: "" }
    allowedUser: [U0AGENT01]
externalDocumentNumber: { pattern: "{ticket}" }
admins: [bob]
adminGroups: [U0NOTAGROUP]
`);
    expect(list).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^adminChannel: must be a Slack channel id/),
        expect.stringMatching(/^catalog\[1\]\.itemNumber: duplicate item number LAP-1/),
        expect.stringMatching(/^bundles\[0\]\.lines\[0\]\.quantity: must be at least 1/),
        expect.stringMatching(/^profiles\[0\]: unknown key\(s\) "allowedUser"/),
        expect.stringMatching(/^profiles\[0\]\.channels\[0\]: must be a Slack channel id/),
        expect.stringMatching(/^profiles\[0\]\.invoice\.id: must not be empty/),
        expect.stringMatching(/^externalDocumentNumber\.pattern: must contain \{seq\}/),
        expect.stringMatching(/^admins\[0\]: must be a Slack user id/),
        expect.stringMatching(/^adminGroups\[0\]: must be a Slack user group id/),
      ]),
    );
  });

  it("refuses a profile nobody may use, and a bundle line outside the catalog", () => {
    const list = problems(
      `${MINIMAL.replace("    allowedUsers: [U0AGENT01]\n", "")}bundles:\n  - { name: Kit, lines: [{ itemNumber: X-1, quantity: 1 }] }\n`,
    );
    expect([...list].sort()).toEqual([
      expect.stringMatching(/^bundles\[0\]\.lines\[0\]\.itemNumber: X-1 is not in the catalog/),
      expect.stringMatching(/^profiles\[0\]\.allowedUsers: nobody may order with this profile/),
    ]);
  });

  it("reports a YAML syntax error and a missing file in words that say what to do", async () => {
    expect(problems("adminChannel: C0ADMIN\nadminChannel: C0OTHER\n")).toEqual([
      'not valid YAML at line 2: Map keys must be unique: "adminChannel: C0OTHER"',
    ]);
    expect(problems("adminChannel: [unclosed")[0]).toMatch(/^not valid YAML at line \d+: .*[^:]$/);
    const dir = mkdtempSync(join(tmpdir(), "order-desk-config-"));
    await expect(loadCustomerConfig(join(dir, "missing.yml"))).rejects.toThrow(
      /copy examples\/order-desk\.config\.yml/,
    );
    const file = join(dir, "bad.yml");
    writeFileSync(file, "adminChannel: C0ADMIN\n");
    await expect(loadCustomerConfig(file)).rejects.toThrow(/bad\.yml has 2 problems; fix it/);
    writeFileSync(file, "adminChannel:\n  - [C0ADMIN\n");
    await expect(loadCustomerConfig(file)).rejects.toThrow(/bad\.yml has a problem; fix it/);
  });

  it("reads a .json customer file as JSON, and names JSON (not YAML) and the line in its syntax errors", () => {
    const json = (text: string) => {
      try {
        parseCustomerConfig(text, "order-desk.config.json");
        return [];
      } catch (error) {
        return [...(error as CustomerConfigError).problems];
      }
    };
    expect(json('{\n  "adminChannel": "C0ADMIN",\n  }\n')).toEqual([
      expect.stringMatching(/^not valid JSON at line 3: .*: "}"$/),
    ]);
    expect(json('{ "adminChannel": "C0ADMIN" }')).toContain("catalog: required");
  });
});
