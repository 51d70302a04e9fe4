/** What every listener needs, built once by `createSlackApp` and passed to each `register`. */
import type { Logger } from "pino";
import type { Customer } from "../config/catalog.ts";
import type { SubmitDeps } from "../orders/submit.ts";
import type { Store } from "../store/db.ts";

export interface SlackContext {
  customer: Customer;
  store: Store;
  /** The order workflow's dependencies (store, jobs, authorizer, clock, ids). */
  orders: SubmitDeps;
  logger: Logger;
  now: () => Date;
  /** For dates in App Home and status lines. */
  timeZone: string;
}
