/**
 * A profile's `approval:` block (docs/configuration.md): who may approve its orders, which orders need it, and
 * when approvers are reminded and the request expires. Strict like the rest of the customer file: an unknown key,
 * a rule naming two conditions, nobody to approve, or an item number or category the catalog does not have is
 * reported at start-up with the rest of the file's problems.
 */
import { z } from "zod";
import { amountSchema } from "./budget-schema.ts";

const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;
const SLACK_GROUP_ID = /^S[A-Z0-9]{2,}$/;
const text = z.string().trim().min(1, { error: "must not be empty" });

export const APPROVAL_RULE_KEYS = [
  "always",
  "itemNumbers",
  "categories",
  "quantityOver",
  "deliveryAt",
  "outsideBundles",
  "orderTotalOver",
  "overBudget",
] as const;

/** One entry of `when`: exactly one condition. */
export const approvalRuleSchema = z
  .strictObject({
    always: z.literal(true, { error: "must be true (leave the rule out otherwise)" }).optional(),
    itemNumbers: z.array(text).min(1, { error: "must list at least one item number" }).optional(),
    categories: z.array(text).min(1, { error: "must list at least one category" }).optional(),
    quantityOver: z
      .int({ error: "must be a whole number" })
      .min(0, { error: "must be 0 or more" })
      .optional(),
    deliveryAt: z.enum(["Office", "Home"], { error: "must be Office or Home" }).optional(),
    outsideBundles: z.literal(true, { error: "must be true (leave the rule out otherwise)" }).optional(),
    /** An order whose total (in the file's `currency`) is more than this. */
    orderTotalOver: amountSchema.optional(),
    /** An order that would take the month's spend over the profile's budget (with `budget.onExceed: approve`). */
    overBudget: z.literal(true, { error: "must be true (leave the rule out otherwise)" }).optional(),
  })
  .refine((rule) => Object.values(rule).filter((v) => v !== undefined).length === 1, {
    error: `each rule names exactly one of ${APPROVAL_RULE_KEYS.join(", ")} (write two rules for two conditions)`,
  });

export type ApprovalRule = z.output<typeof approvalRuleSchema>;

export const DEFAULT_REMIND_AFTER_HOURS = 24;
export const DEFAULT_EXPIRE_AFTER_DAYS = 7;

export const approvalSchema = z
  .strictObject({
    /** Slack user ids who may approve. */
    approvers: z
      .array(text.regex(SLACK_USER_ID, { error: "must be a Slack user id such as U0123ABCD" }))
      .default([]),
    /** Slack user group ids whose members may approve. */
    approverGroups: z
      .array(text.regex(SLACK_GROUP_ID, { error: "must be a Slack user group id such as S0123ABCD" }))
      .default([]),
    /** Any rule that matches makes the order need approval; without `when`, every order does. */
    when: z
      .array(approvalRuleSchema)
      .min(1, { error: "must list at least one rule" })
      .default([{ always: true }]),
    remindAfterHours: z
      .number({ error: "must be a number of hours" })
      .positive({ error: "must be more than 0" })
      .default(DEFAULT_REMIND_AFTER_HOURS),
    expireAfterDays: z
      .number({ error: "must be a number of days" })
      .positive({ error: "must be more than 0" })
      .default(DEFAULT_EXPIRE_AFTER_DAYS),
  })
  .refine((a) => a.approvers.length + a.approverGroups.length > 0, {
    error:
      "nobody may approve this profile's orders: list Slack user ids in approvers or user group ids in approverGroups",
    path: ["approvers"],
  })
  .refine((a) => a.remindAfterHours < a.expireAfterDays * 24, {
    error: "must be shorter than expireAfterDays, or the reminder would come after the request expired",
    path: ["remindAfterHours"],
  });

export type ApprovalConfig = z.output<typeof approvalSchema>;

type Issue = { path: (string | number)[]; message: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === "string") : []);
const records = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isRecord) : []);

/**
 * Item numbers and categories the approval rules name must be in the catalog: a typo would silently let orders
 * through without approval. Runs on the file as read, even when other parts of it are wrong (so every problem is
 * reported at once), hence reads it defensively. Returns one issue per unknown name, with its path.
 */
export function approvalReferenceIssues(config: unknown): Issue[] {
  if (!isRecord(config)) return [];
  const catalog = records(config.catalog);
  const items = new Set(strings(catalog.map((i) => i.itemNumber)));
  // A catalog item without a category is in "Other" (the schema's default).
  const categories = new Set(
    catalog.map((i) => (typeof i.category === "string" ? i.category.trim() : "Other")),
  );
  const issues: Issue[] = [];
  const profiles = Array.isArray(config.profiles) ? config.profiles : [];
  profiles.forEach((profile: unknown, p) => {
    const approval = isRecord(profile) && isRecord(profile.approval) ? profile.approval : null;
    const when = Array.isArray(approval?.when) ? approval.when : [];
    when.forEach((rule: unknown, r) => {
      if (!isRecord(rule)) return;
      strings(rule.itemNumbers).forEach((itemNumber, i) => {
        if (!items.has(itemNumber.trim()))
          issues.push({
            path: ["profiles", p, "approval", "when", r, "itemNumbers", i],
            message: `${itemNumber} is not in the catalog`,
          });
      });
      strings(rule.categories).forEach((category, i) => {
        if (!categories.has(category.trim()))
          issues.push({
            path: ["profiles", p, "approval", "when", r, "categories", i],
            message: `no catalog item has the category ${category} (categories: ${[...categories].join(", ")})`,
          });
      });
    });
  });
  return issues;
}
