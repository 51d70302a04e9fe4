/**
 * Spend under control (docs/configuration.md, "Budgets"): a profile's monthly `budget` and what happens to an order
 * that would take the month over it, and the customer's `timeZone`, which says where a calendar month starts. An
 * amount is an exact decimal (a number or a string of digits, at most 4 decimals): it is compared in the database
 * as `numeric`, never as a binary floating point number.
 */
import { z } from "zod";

/** `approve`: an approver decides (the `overBudget` rule); `refuse`: not accepted; `warn`: placed, admins told. */
export const ON_EXCEED = ["approve", "refuse", "warn"] as const;
export type OnExceed = (typeof ON_EXCEED)[number];

const DECIMAL = /^\d{1,16}(?:\.\d{1,4})?$/;

/**
 * A non-negative amount as an exact decimal string ("20000", "1999.95"). YAML reads `20000` as a number: a number
 * is taken as written when it has at most 4 decimals and is exact (an integer below 2^53, or a short decimal).
 */
export const amountSchema = z
  .union([z.string(), z.number()], { error: "must be an amount such as 20000 or 1999.95" })
  .transform((value, ctx) => {
    const text = typeof value === "number" ? numberText(value) : value.trim();
    if (text === null || !DECIMAL.test(text)) {
      ctx.addIssue({
        code: "custom",
        message:
          typeof value === "number" && value < 0
            ? "must not be negative"
            : "must be an amount such as 20000 or 1999.95 (digits, at most 4 decimals)",
      });
      return z.NEVER;
    }
    return text;
  });

function numberText(value: number): string | null {
  if (!Number.isFinite(value) || value < 0) return null;
  if (Number.isInteger(value)) return Number.isSafeInteger(value) ? String(value) : null;
  // A short decimal as YAML wrote it (1999.95 prints back as "1999.95"); anything longer is refused as inexact.
  const text = String(value);
  return /e/i.test(text) ? null : text;
}

export const budgetSchema = z.strictObject({
  /** The most the profile's orders may add up to in a calendar month, in the file's `currency`. */
  monthly: amountSchema.refine((v) => !/^0+(?:\.0+)?$/.test(v), { error: "must be more than 0" }),
  onExceed: z.enum(ON_EXCEED, { error: "must be approve, refuse or warn" }),
});

export type Budget = z.output<typeof budgetSchema>;

type Issue = { path: (string | number)[]; message: string };
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/**
 * What a budget needs from the rest of the file: a top-level `currency` (an amount means nothing without one), an
 * `approval` block to ask when `onExceed: approve`, and an `overBudget` rule only where a budget asks approvers.
 * Read defensively, like approvalReferenceIssues: it runs even when other parts of the file are wrong.
 */
export function budgetReferenceIssues(config: unknown): Issue[] {
  if (!isRecord(config)) return [];
  const issues: Issue[] = [];
  const profiles = Array.isArray(config.profiles) ? config.profiles : [];
  profiles.forEach((profile: unknown, p) => {
    if (!isRecord(profile)) return;
    const budget = isRecord(profile.budget) ? profile.budget : null;
    const approval = isRecord(profile.approval) ? profile.approval : null;
    if (budget && config.currency === undefined) {
      issues.push({
        path: ["profiles", p, "budget"],
        message: "a budget needs the file's currency: add currency (such as EUR) at the top level",
      });
    }
    if (budget?.onExceed === "approve" && !approval) {
      issues.push({
        path: ["profiles", p, "budget", "onExceed"],
        message: "approve needs someone to ask: add an approval block with approvers to this profile",
      });
    }
    const when = Array.isArray(approval?.when) ? approval.when : [];
    when.forEach((rule: unknown, r) => {
      if (!isRecord(rule)) return;
      if (rule.orderTotalOver !== undefined && config.currency === undefined)
        issues.push({
          path: ["profiles", p, "approval", "when", r, "orderTotalOver"],
          message: "an amount needs the file's currency: add currency (such as EUR) at the top level",
        });
      if (rule.overBudget !== undefined && budget?.onExceed !== "approve")
        issues.push({
          path: ["profiles", p, "approval", "when", r, "overBudget"],
          message: "overBudget applies only to a profile with budget.onExceed: approve",
        });
    });
  });
  return issues;
}
