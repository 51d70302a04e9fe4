import { describe, expect, it } from "vitest";
import { checkAdmin } from "../../src/orders/admins.ts";
import { createAuthorizer } from "../../src/orders/authorization.ts";
import { exampleConfig } from "../slack/support/harness.ts";

const profile = exampleConfig().profiles[0]!; // allowedUsers [U0AGENT01], allowedUserGroups [S0HELPDESK]

describe("who may order", () => {
  it("allows listed users without a lookup, and group members through one cached lookup", async () => {
    let lookups = 0;
    let now = 0;
    const authorizer = createAuthorizer({
      groupMembers: async () => {
        lookups++;
        return ["U0MANAGER"];
      },
      ttlMs: 1000,
      now: () => now,
    });
    expect(await authorizer.check(profile, "U0AGENT01")).toEqual({ allowed: true });
    expect(lookups).toBe(0);
    const [a, b] = await Promise.all([
      authorizer.check(profile, "U0MANAGER"),
      authorizer.check(profile, "U0MANAGER"),
    ]);
    expect([a, b]).toEqual([{ allowed: true }, { allowed: true }]);
    expect(lookups).toBe(1);
    const denied = await authorizer.check(profile, "U0OUTSIDER");
    expect(denied).toMatchObject({ allowed: false, reason: "not_listed" });
    expect(!denied.allowed && denied.message).toMatch(/Ask an Order Desk admin/);
    now = 2000;
    await authorizer.check(profile, "U0MANAGER");
    expect(lookups).toBe(2);
  });

  it("uses the last known members when Slack is unreachable, and says so when it never answered", async () => {
    let fail = false;
    let now = 0;
    const authorizer = createAuthorizer({
      groupMembers: async () => {
        if (fail) throw new Error("ETIMEDOUT");
        return ["U0MANAGER"];
      },
      ttlMs: 10,
      now: () => now,
    });
    await authorizer.check(profile, "U0MANAGER");
    fail = true;
    now = 100;
    expect(await authorizer.check(profile, "U0MANAGER")).toEqual({ allowed: true });
    const cold = createAuthorizer({
      groupMembers: async () => {
        throw new Error("ETIMEDOUT");
      },
    });
    expect(await cold.check(profile, "U0MANAGER")).toMatchObject({ allowed: false, reason: "lookup_failed" });
  });
});

describe("who is an admin, and who a group names", () => {
  const groups: Record<string, string[]> = { S0ITLEADS: ["U0LEAD1", "U0LEAD2"], S0BROKEN: [] };
  const lookup = async (groupId: string) => {
    if (groupId === "S0BROKEN") throw new Error("ETIMEDOUT");
    return groups[groupId] ?? [];
  };

  it("lets listed admins and members of admin groups act, and tells everyone else nothing changed", async () => {
    const authorizer = createAuthorizer({ groupMembers: lookup });
    const config = { admins: ["U0ADMIN"], adminGroups: ["S0ITLEADS"] };
    expect(await checkAdmin(authorizer, config, "U0ADMIN")).toEqual({ allowed: true });
    expect(await checkAdmin(authorizer, config, "U0LEAD2")).toEqual({ allowed: true });
    const denied = await checkAdmin(authorizer, config, "U0AGENT01");
    expect(denied).toMatchObject({ allowed: false, reason: "not_admin" });
    // Says who may, as mentions (shown in an ephemeral, where they notify nobody).
    expect(!denied.allowed && denied.message).toMatch(
      /nothing was changed.*<@U0ADMIN>, <!subteam\^S0ITLEADS>/,
    );
    const odd = await checkAdmin(authorizer, { admins: ["<!channel>"], adminGroups: [] }, "U0AGENT01");
    expect(!odd.allowed && odd.message).toContain("&lt;!channel&gt;");
    expect(await checkAdmin(authorizer, { admins: [], adminGroups: ["S0BROKEN"] }, "U0LEAD1")).toMatchObject({
      allowed: false,
      reason: "lookup_failed",
    });
    expect(await checkAdmin(authorizer, { admins: [], adminGroups: [] }, "U0ADMIN")).toMatchObject({
      reason: "not_admin",
    });
  });

  it("expands groups to their members once each, and names the groups it could not look up", async () => {
    const authorizer = createAuthorizer({ groupMembers: lookup });
    expect(
      await authorizer.expand({ users: ["U0LEAD1", "U0BOSS"], groups: ["S0ITLEADS", "S0BROKEN"] }),
    ).toEqual({ users: ["U0LEAD1", "U0BOSS", "U0LEAD2"], failedGroups: ["S0BROKEN"] });
  });
});
