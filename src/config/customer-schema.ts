/**
 * The customer file (`order-desk.config.yml`): what a customer agreed with the supplier's account manager (item
 * numbers, invoice and consignee ids, order type) and who in Slack may order on which terms. Parsed once at
 * start-up; unknown keys are errors so a typo ("allowedUser:") never silently opens or closes ordering.
 * Documented in docs/configuration.md.
 */

import { z } from "zod";
import { DEFAULT_ORDER_TYPE } from "../supplier/schema.ts";
import { approvalReferenceIssues, approvalSchema } from "./approval-schema.ts";
import { budgetReferenceIssues, budgetSchema } from "./budget-schema.ts";
import { datesKeys, leadTimeItemIssues, neededByModeSchema } from "./dates-schema.ts";
import { currencySchema, localeSchema, moneyIssues, priceSchema, shipsToSchema } from "./money-schema.ts";
import { supplierEventsSchema } from "./supplier-events.ts";
import { watchdogSchema } from "./watchdog-schema.ts";

/** Jira-style keys (`ABC-123`) and bare numbers (`#123`). */
export const DEFAULT_TICKET_ID_PATTERN = "^(?:[A-Z][A-Z0-9_]{0,19}-[1-9][0-9]{0,9}|#[1-9][0-9]{0,9})$";
/** The ticket id and a per-ticket sequence: the first order for ABC-123 is `ABC-123-1`. */
export const DEFAULT_EDN_PATTERN = "{ticket}-{seq}";
/** The supplier does not state a limit; document numbers in ERPs rarely exceed 35 characters. */
export const MAX_EDN_LENGTH = 35;

const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;
const SLACK_GROUP_ID = /^S[A-Z0-9]{2,}$/;

const text = z.string().trim().min(1, { error: "must not be empty" });

/**
 * What an order's Slack thread shows: `milestones` (placed, each parcel shipped, delivered, every exception and
 * cancellation) or `all` (every supplier event). Other events still update the order's status line and App Home.
 */
export const UPDATES_VERBOSITIES = ["milestones", "all"] as const;
export type UpdatesVerbosity = (typeof UPDATES_VERBOSITIES)[number];
export const DEFAULT_UPDATES: UpdatesVerbosity = "milestones";
const updatesSchema = z.enum(UPDATES_VERBOSITIES, {
  error: "must be milestones (the default) or all",
});
const optionalText = text.optional();

const regexSource = text.refine(
  (source) => {
    try {
      new RegExp(source);
      return true;
    } catch {
      return false;
    }
  },
  { error: "must be a valid regular expression" },
);

export const catalogItemSchema = z.strictObject({
  itemNumber: text.max(75, { error: "must be at most 75 characters" }),
  name: text.max(75, { error: "must be at most 75 characters (Slack shows at most 75 in a menu)" }),
  category: text.max(75, { error: "must be at most 75 characters" }).default("Other"),
  keywords: z.array(text).default([]),
  /** The agreed price of one unit, in the file's `currency` (./money-schema.ts); none: the order shows no amounts. */
  price: priceSchema.optional(),
  /** ISO 3166-1 alpha-2 codes this item ships to; none: everywhere. */
  countries: shipsToSchema.optional(),
});

export const bundleLineSchema = z.strictObject({
  itemNumber: text,
  quantity: z.int({ error: "must be a whole number" }).min(1, { error: "must be at least 1" }),
  comment: optionalText,
});

export const bundleSchema = z.strictObject({
  name: text.max(75, { error: "must be at most 75 characters" }),
  description: optionalText,
  lines: z.array(bundleLineSchema).min(1, { error: "must list at least one line" }),
});

const partyAddress = {
  companyName: optionalText,
  attentionName: optionalText,
  address1: optionalText,
  address2: optionalText,
  city: optionalText,
  zipCode: optionalText,
  stateName: optionalText,
  countryIso2: optionalText,
};

export const profileSchema = z
  .strictObject({
    name: text.max(75, { error: "must be at most 75 characters" }),
    /** Slack channel ids (C…/G…) where `/order` uses this profile. */
    channels: z
      .array(text.regex(SLACK_CHANNEL_ID, { error: "must be a Slack channel id such as C0123ABCD" }))
      .min(1, { error: "must list at least one channel id" }),
    invoice: z.strictObject({ id: text, vatNumber: optionalText, ...partyAddress }),
    consignee: z.strictObject({ id: text }).nullable().default(null),
    sellTo: z
      .strictObject({
        id: optionalText,
        ...partyAddress,
        contact: z
          .strictObject({ firstName: text, lastName: text, phoneNumber: text, email: text })
          .optional(),
      })
      .nullable()
      .default(null),
    orderType: text.default(DEFAULT_ORDER_TYPE),
    /** Secrets Manager id of this profile's API key; default: the deployment's `SUPPLIER_API_KEY_SECRET_ID`. */
    apiKeySecretId: optionalText,
    supplier: z.strictObject({ environment: z.enum(["live", "test"]) }).default({ environment: "test" }),
    /** This profile's thread verbosity; default: the top-level `updates`. */
    updates: updatesSchema.optional(),
    allowedUsers: z
      .array(text.regex(SLACK_USER_ID, { error: "must be a Slack user id such as U0123ABCD" }))
      .default([]),
    allowedUserGroups: z
      .array(text.regex(SLACK_GROUP_ID, { error: "must be a Slack user group id such as S0123ABCD" }))
      .default([]),
    /**
     * Whether the Workflow Builder step may order with this profile. Off unless asked for: a workflow runs for
     * whoever triggers it, and Slack names neither that person nor the workflow's author to the step, so
     * `allowedUsers`/`allowedUserGroups` cannot be applied to it.
     */
    allowWorkflows: z.boolean({ error: "must be true or false" }).default(false),
    /** Orders that need an approver's yes before they are placed (./approval-schema.ts); none without it. */
    approval: approvalSchema.optional(),
    /** The most this profile's orders may cost in a calendar month, and what then (./budget-schema.ts). */
    budget: budgetSchema.optional(),
    /** `required`: every order with this profile gives the date it is needed by. */
    neededBy: neededByModeSchema,
  })
  .refine((p) => p.allowedUsers.length + p.allowedUserGroups.length > 0, {
    error:
      "nobody may order with this profile: list Slack user ids in allowedUsers or group ids in allowedUserGroups",
    path: ["allowedUsers"],
  });

export const customerConfigSchema = z
  .strictObject({
    /** Channel for operational alerts (the supplier rejected our API key, a profile is misconfigured). */
    adminChannel: text.regex(SLACK_CHANNEL_ID, { error: "must be a Slack channel id such as C0123ABCD" }),
    /** Slack users who may act on admin alerts, see "Needs attention" and export orders. */
    admins: z
      .array(text.regex(SLACK_USER_ID, { error: "must be a Slack user id such as U0123ABCD" }))
      .default([]),
    /** Slack user groups whose members are admins too. */
    adminGroups: z
      .array(text.regex(SLACK_GROUP_ID, { error: "must be a Slack user group id such as S0123ABCD" }))
      .default([]),
    /** `/order export` and `order-desk orders export`: the recipient's e-mail, phone and address only if asked. */
    export: z.strictObject({ personalData: z.boolean().default(false) }).default({ personalData: false }),
    ticketIdPattern: regexSource.default(DEFAULT_TICKET_ID_PATTERN),
    externalDocumentNumber: z
      .strictObject({
        pattern: text
          .default(DEFAULT_EDN_PATTERN)
          .refine((p) => /\{seq(?::\d)?\}/.test(p), {
            error: "must contain {seq} (or {seq:N} for N digits) so that every order gets its own number",
          })
          .refine((p) => !/\{(?!ticket\}|seq\}|seq:\d\}|profile\}|date\})[^}]*\}/.test(p), {
            error: "may only use the placeholders {ticket}, {seq}, {seq:N}, {profile} and {date}",
          }),
        /** Whether an agent may type their own number in the modal. */
        allowManual: z.boolean().default(true),
      })
      .default({ pattern: DEFAULT_EDN_PATTERN, allowManual: true }),
    broadcast: z
      .strictObject({
        delivered: z.boolean().default(true),
        cancelled: z.boolean().default(true),
        exception: z.boolean().default(true),
      })
      .default({ delivered: true, cancelled: true, exception: true }),
    updates: updatesSchema.default(DEFAULT_UPDATES),
    /** ISO 4217 code the catalog's prices are in (`EUR`); required once an item has a price. */
    currency: currencySchema.optional(),
    /** BCP 47 tag amounts are written in (`de-DE`: 1.234,50 €); default `en`. */
    locale: localeSchema.optional(),
    catalog: z.array(catalogItemSchema).min(1, { error: "must list at least one item" }),
    bundles: z.array(bundleSchema).default([]),
    profiles: z.array(profileSchema).min(1, { error: "must define at least one profile" }),
    /** How the supplier signs its events and how to read them (supplier-events.ts); absent: our own contract. */
    supplierEvents: supplierEventsSchema,
    /** When admins hear of an order that stalls (src/orders/watchdog/); defaults in watchdog-schema.ts. */
    watchdog: watchdogSchema,
    /** Lead times, holidays, express orders and the time zone: where "today" and a budget's month are (dates-schema.ts). */
    ...datesKeys,
  })
  .superRefine((config, ctx) => {
    const items = new Set<string>();
    config.catalog.forEach((item, i) => {
      if (items.has(item.itemNumber))
        ctx.addIssue({
          code: "custom",
          path: ["catalog", i, "itemNumber"],
          message: `duplicate item number ${item.itemNumber}`,
        });
      items.add(item.itemNumber);
    });
    const bundleNames = new Set<string>();
    config.bundles.forEach((bundle, b) => {
      const key = bundle.name.toLowerCase();
      if (bundleNames.has(key))
        ctx.addIssue({
          code: "custom",
          path: ["bundles", b, "name"],
          message: `duplicate bundle ${bundle.name}`,
        });
      bundleNames.add(key);
      bundle.lines.forEach((line, l) => {
        if (!items.has(line.itemNumber))
          ctx.addIssue({
            code: "custom",
            path: ["bundles", b, "lines", l, "itemNumber"],
            message: `${line.itemNumber} is not in the catalog`,
          });
      });
    });
    const names = new Set<string>();
    config.profiles.forEach((profile, p) => {
      if (names.has(profile.name))
        ctx.addIssue({
          code: "custom",
          path: ["profiles", p, "name"],
          message: `duplicate profile ${profile.name}`,
        });
      names.add(profile.name);
    });
    for (const issue of leadTimeItemIssues(config)) ctx.addIssue({ code: "custom", ...issue });
  })
  // Also when other parts of the file are wrong, so that every problem is reported at once.
  .superRefine(
    (config, ctx) => {
      for (const issue of approvalReferenceIssues(config)) ctx.addIssue({ code: "custom", ...issue });
      for (const issue of budgetReferenceIssues(config)) ctx.addIssue({ code: "custom", ...issue });
      for (const issue of moneyIssues(config)) ctx.addIssue({ code: "custom", ...issue });
    },
    { when: () => true },
  );

export type CustomerConfigInput = z.input<typeof customerConfigSchema>;
export type CustomerConfig = z.output<typeof customerConfigSchema>;
export type Profile = CustomerConfig["profiles"][number];
export type CatalogItem = CustomerConfig["catalog"][number];
export type Bundle = CustomerConfig["bundles"][number];
export type BundleLine = Bundle["lines"][number];
