/**
 * Order Desk's admins: the people the customer file names in `admins` and `adminGroups`. Only they act on admin
 * alerts, see "Needs attention" and export orders. Every click and command asks again here, on the server:
 * nothing in a button's value or a view's metadata is taken as proof.
 */
import type { CustomerConfig } from "../config/customer-schema.ts";
import type { Membership, People } from "./authorization.ts";

export type AdminCheck =
  | { allowed: true }
  | { allowed: false; reason: "not_admin" | "lookup_failed"; message: string };

export function adminsOf(config: Pick<CustomerConfig, "admins" | "adminGroups">): People {
  return { users: config.admins, groups: config.adminGroups };
}

export async function checkAdmin(
  membership: Pick<Membership, "isAmong">,
  config: Pick<CustomerConfig, "admins" | "adminGroups">,
  userId: string,
): Promise<AdminCheck> {
  const result = await membership.isAmong(adminsOf(config), userId);
  if (result.member) return { allowed: true };
  if (result.reason === "lookup_failed") {
    return {
      allowed: false,
      reason: "lookup_failed",
      message:
        "Order Desk could not check your user group membership with Slack just now, so it did nothing. Try again in a minute.",
    };
  }
  return { allowed: false, reason: "not_admin", message: notAdminMessage(config) };
}

/** Slack ids only: anything else in the customer file is shown escaped, never as a mention or link. */
const SLACK_ID = /^[A-Z0-9]{2,30}$/;
const escapeText = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/**
 * Who may do it, by name: the admins and admin groups as mentions. The refusal is an ephemeral message (or a DM
 * from the app), where a mention notifies nobody.
 */
export function notAdminMessage(config: Pick<CustomerConfig, "admins" | "adminGroups">): string {
  const who = [
    ...config.admins.map((id) => (SLACK_ID.test(id) ? `<@${id}>` : escapeText(id))),
    ...config.adminGroups.map((id) => (SLACK_ID.test(id) ? `<!subteam^${id}>` : escapeText(id))),
  ];
  const ask =
    who.length === 0
      ? "No admins are set up yet (`admins` and `adminGroups` in the customer file): ask whoever runs Order Desk."
      : `Ask one of them: ${who.join(", ")}.`;
  return `Only Order Desk admins can do this, so nothing was changed. ${ask}`;
}
