/**
 * `/order status` shows an order only to those who can see where it was posted: the members of its channel (asked
 * of Slack with conversations.members), its requester and Order Desk's admins; everyone else allowed to look is told
 * how many orders were left out. One profile posts in #helpdesk, a private channel and a public one. Over the real
 * wire: signed slash commands, the fake Slack Web API, a scripted supplier.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Order } from "../../src/orders/model/order.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import { AGENT, BOSS, type Harness, HELPDESK, MANAGER, startHarness, VALID_FORM } from "./support/harness.ts";

const PRIVATE = "C0PRIVATE1";
const PUBLIC = "C0PUBLIC01";
/** Allowed to order with the profile; in #helpdesk and the public channel, not in the private one. */
const CARL = "U0CARL001";
/** An Order Desk admin in none of the other channels (allowed to order, so they may look at all). */
const ADMIN_USER = "U0ITLEAD";

describe("/order status across a profile's channels", () => {
  let supplier: StubSupplier;
  let h: Harness;
  const placed: Record<string, Order> = {};

  beforeAll(async () => {
    supplier = await startStubSupplier([success(), success(), success()]);
    h = await startHarness({
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      users: [
        { id: CARL, name: "carl", realName: "Carl Colleague" },
        { id: ADMIN_USER, name: "ivy", realName: "Ivy Admin" },
      ],
      channels: [
        { id: PRIVATE, name: "exec-orders", isPrivate: true, members: [AGENT, MANAGER] },
        { id: PUBLIC, name: "helpdesk-nl", members: [AGENT, CARL, BOSS] },
      ],
      customize: (config) => {
        config.profiles[0]!.channels.push(PRIVATE, PUBLIC);
        config.profiles[0]!.allowedUsers.push(CARL, ADMIN_USER);
        config.admins = [ADMIN_USER];
      },
    });
    for (const channel of [HELPDESK, PRIVATE, PUBLIC]) {
      const { triggerId } = await h.agent.runCommand({ channel, command: "/order", text: "VIS-1" });
      const view = await h.agent.openedModal(triggerId);
      const done = await h.agent.submit(view.id, {
        ...VALID_FORM,
        ticket: "VIS-1",
        // Only #helpdesk has two profiles to choose from.
        ...(channel === HELPDESK && { profile: "Acme EU" }),
      });
      expect(done.outcome.outcome).toBe("closed");
      placed[channel] = await h.waitForOrder(
        (o) => o.slackChannelId === channel && o.customerReference === "VIS-1" && o.slackMessageTs !== null,
        `the order in ${channel}`,
      );
    }
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  async function ask(userId: string, channel = HELPDESK) {
    const before = h.fake.responses().length;
    await h.user(userId).runCommand({ channel, command: "/order", text: "status VIS-1" });
    const answer = await h.fake.waitFor(() => h.fake.responses()[before], { what: "the status answer" });
    return answer.body as { text: string; blocks?: unknown[] };
  }

  const numbers = (answer: { blocks?: unknown[] }) =>
    [HELPDESK, PRIVATE, PUBLIC].filter((c) =>
      JSON.stringify(answer.blocks ?? []).includes(placed[c]!.externalDocumentNumber),
    );

  it("leaves a private channel's order out for someone not in it, and says how many were left out", async () => {
    const answer = await ask(CARL);
    expect(numbers(answer)).toEqual([HELPDESK, PUBLIC]);
    expect(answer.text).toContain("1 more order was left out");
    expect(JSON.stringify(answer)).not.toContain(placed[PRIVATE]!.externalDocumentNumber);
    expect(h.fake.calls("conversations.members").some((c) => c.args.channel === PRIVATE)).toBe(true);
  });

  it("leaves a public channel's order out for someone not in it, and shows the private one to its member", async () => {
    const answer = await ask(MANAGER);
    expect(numbers(answer)).toEqual([HELPDESK, PRIVATE]);
    expect(answer.text).toContain("1 more order was left out");
  });

  it("shows every order to its requester and to an admin, with nothing left out", async () => {
    for (const userId of [AGENT, ADMIN_USER]) {
      const answer = await ask(userId);
      expect(numbers(answer), userId).toEqual([HELPDESK, PRIVATE, PUBLIC]);
      expect(answer.text, userId).not.toContain("left out");
    }
  });

  it("shows the private channel's order to a member asking there without asking Slack about it", async () => {
    const calls = h.fake.calls("conversations.members").length;
    const answer = await ask(MANAGER, PRIVATE);
    expect(numbers(answer)).toEqual([HELPDESK, PRIVATE]);
    expect(
      h.fake
        .calls("conversations.members")
        .slice(calls)
        .some((c) => c.args.channel === PRIVATE),
    ).toBe(false);
  });

  it("counts every order left out for someone in neither of the other channels", async () => {
    h.fake.workspace.channels.get(PUBLIC)!.members.delete(CARL);
    const answer = await ask(CARL);
    expect(numbers(answer)).toEqual([HELPDESK]);
    expect(answer.text).toContain("2 more orders were left out");
    h.fake.workspace.channels.get(PUBLIC)!.members.add(CARL);
  });
});
