/**
 * `watchdog` in the customer file: how long an order may go without the supplier's next step before admins hear
 * of it (src/orders/watchdog/). Every key has a default; unknown keys are errors, like everywhere in the file.
 */
import { z } from "zod";

export const DEFAULT_WATCHDOG = {
  acceptedWithinHours: 24,
  shippedWithinDays: 1,
  deliveredWithinDays: 2,
} as const;

const whole = (max: number, what: string) =>
  z
    .number({ error: `must be a whole number of ${what}` })
    .int({ error: `must be a whole number of ${what}` })
    .min(0, { error: `must be 0 or more ${what}` })
    .max(max, { error: `must be at most ${max} ${what}` });

export const watchdogSchema = z
  .strictObject({
    /** Placed, but not a single supplier event since: reported this many hours after placement. */
    acceptedWithinHours: whole(24 * 30, "hours").default(DEFAULT_WATCHDOG.acceptedWithinHours),
    /** Not shipped this many business days after the expected ship date (expected delivery − 1 business day). */
    shippedWithinDays: whole(60, "business days").default(DEFAULT_WATCHDOG.shippedWithinDays),
    /** Not delivered this many business days after the latest estimated delivery. */
    deliveredWithinDays: whole(60, "business days").default(DEFAULT_WATCHDOG.deliveredWithinDays),
  })
  .default({ ...DEFAULT_WATCHDOG });

export type WatchdogConfig = z.output<typeof watchdogSchema>;
