/** What every listener needs, built once by `createSlackApp` and passed to each `register`. */
import type { Logger } from "pino";
import type { Customer } from "../config/catalog.ts";
import type { Membership } from "../orders/authorization.ts";
import type { SubmitDeps } from "../orders/submit.ts";
import type { Store } from "../store/db.ts";
import type { MetadataSeal } from "./metadata.ts";

export interface SlackContext {
  customer: Customer;
  store: Store;
  /** The order workflow's dependencies (store, jobs, authorizer, clock, ids). */
  orders: SubmitDeps;
  logger: Logger;
  now: () => Date;
  /** For dates in App Home and status lines. */
  timeZone: string;
  /** Seals the order modal's `private_metadata` and checks it on the way back (./metadata.ts). */
  metadata: MetadataSeal;
  /** Who is among a set of people (admins): the authorizer's cached group lookups. */
  membership: Pick<Membership, "isAmong">;
}
