import { describe, expect, it } from "vitest";
import { anyOf, routeById } from "../../src/slack/listeners/route.ts";

describe("routing one Bolt listener to the handler of each id", () => {
  it("matches exactly the given ids, with regular-expression characters taken literally", () => {
    const pattern = anyOf(["add_line", "item.search", "a+b"]);
    expect(["add_line", "item.search", "a+b"].every((id) => pattern.test(id))).toBe(true);
    expect(["add_line_2", "xadd_line", "itemXsearch", "aab", ""].some((id) => pattern.test(id))).toBe(false);
    expect(() => anyOf([])).toThrow(TypeError);
  });

  it("hands each request to the handler of its id and to no other", async () => {
    const seen: string[] = [];
    const route = routeById<{ id: string }>(
      new Map([
        ["add_line", async (args) => void seen.push(`add:${args.id}`)],
        ["remove_line", async (args) => void seen.push(`remove:${args.id}`)],
      ]),
      (args) => args.id,
    );
    await route({ id: "remove_line" });
    await route({ id: "add_line" });
    expect(seen).toEqual(["remove:remove_line", "add:add_line"]);
  });
});
