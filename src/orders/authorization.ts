/**
 * Who may order with a profile: listed Slack user ids, or members of listed user groups. Group membership comes
 * from an injected lookup (Slack's `usergroups.users.list`), cached per group so a busy helpdesk does not hit
 * Slack's rate limits, fetched once for concurrent callers, and served stale when Slack is briefly unreachable.
 */
import { type Logger, pino } from "pino";
import type { Profile } from "../config/customer-schema.ts";

export type GroupMembersLookup = (groupId: string) => Promise<readonly string[]>;

export type AuthorizationResult =
  | { allowed: true }
  | { allowed: false; reason: "not_listed" | "lookup_failed" | "workflows_not_allowed"; message: string };

/** A set of people named in the customer file: Slack user ids and user group ids. */
export interface People {
  users: readonly string[];
  groups: readonly string[];
}

export type MembershipResult = { member: true } | { member: false; reason: "not_listed" | "lookup_failed" };

export interface Expanded {
  /** The listed users and every member of the listed groups, each once, in the order first met. */
  users: string[];
  /** Groups whose members could not be looked up (and had never been). */
  failedGroups: string[];
}

export interface Authorizer {
  check(profile: Profile, userId: string): Promise<AuthorizationResult>;
  /** Allowed without any lookup (listed by user id): lets `/order` open the modal before checking groups. */
  isListed(profile: Profile, userId: string): boolean;
}

/** Membership of any set of people (approvers, admins), with the same cached group lookups. */
export interface Membership {
  /** Whether `userId` is one of `people`: listed by id, or a member of a listed group (cached lookups). */
  isAmong(people: People, userId: string): Promise<MembershipResult>;
  /** Everyone `people` names, groups expanded to their members (cached lookups), e.g. to message each of them. */
  expand(people: People): Promise<Expanded>;
}

export interface AuthorizerOptions {
  groupMembers: GroupMembersLookup;
  /** How long a group's members are trusted (default 5 minutes). */
  ttlMs?: number;
  now?: () => number;
  logger?: Logger;
}

interface Entry {
  members: ReadonlySet<string>;
  fetchedAt: number;
}

export function createAuthorizer(options: AuthorizerOptions): Authorizer & Membership {
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  const logger = options.logger ?? pino({ level: "silent" });
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<Entry>>();

  function fetchGroup(groupId: string): Promise<Entry> {
    let pending = inFlight.get(groupId);
    if (!pending) {
      pending = options
        .groupMembers(groupId)
        .then((members) => {
          const entry = { members: new Set(members), fetchedAt: now() };
          cache.set(groupId, entry);
          return entry;
        })
        .finally(() => inFlight.delete(groupId));
      inFlight.set(groupId, pending);
    }
    return pending;
  }

  async function members(groupId: string): Promise<ReadonlySet<string>> {
    const cached = cache.get(groupId);
    if (cached && now() - cached.fetchedAt < ttlMs) return cached.members;
    try {
      return (await fetchGroup(groupId)).members;
    } catch (error) {
      if (cached) {
        logger.warn({ err: error, groupId }, "user group lookup failed; using the last known members");
        return cached.members;
      }
      throw error;
    }
  }

  const isListed = (profile: Profile, userId: string) => profile.allowedUsers.includes(userId);

  async function isAmong(people: People, userId: string): Promise<MembershipResult> {
    if (people.users.includes(userId)) return { member: true };
    let failed = false;
    for (const groupId of people.groups) {
      try {
        if ((await members(groupId)).has(userId)) return { member: true };
      } catch (error) {
        failed = true;
        logger.warn({ err: error, groupId }, "could not look up a user group's members");
      }
    }
    return { member: false, reason: failed ? "lookup_failed" : "not_listed" };
  }

  return {
    isListed,
    isAmong,
    async expand(people) {
      const users = new Set(people.users);
      const failedGroups: string[] = [];
      for (const groupId of people.groups) {
        try {
          for (const member of await members(groupId)) users.add(member);
        } catch (error) {
          failedGroups.push(groupId);
          logger.warn({ err: error, groupId }, "could not look up a user group's members");
        }
      }
      return { users: [...users], failedGroups };
    },
    async check(profile, userId) {
      const membership = await isAmong(
        { users: profile.allowedUsers, groups: profile.allowedUserGroups },
        userId,
      );
      if (membership.member) return { allowed: true };
      if (membership.reason === "lookup_failed") {
        return {
          allowed: false,
          reason: "lookup_failed",
          message:
            "Order Desk could not check your user group membership with Slack just now. Try again in a minute; if it keeps failing, ask an admin.",
        };
      }
      return {
        allowed: false,
        reason: "not_listed",
        message: `You are not allowed to order with the profile "${profile.name}". Ask an Order Desk admin to add you (or your user group) to it in order-desk.config.yml.`,
      };
    },
  };
}
