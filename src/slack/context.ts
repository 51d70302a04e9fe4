/** What every listener needs, built once by `createSlackApp` and passed to each `register`. */
import type { Logger } from "pino";
import type { Customer } from "../config/catalog.ts";
import type { ApprovalDeps } from "../orders/approvals/decide.ts";
import type { Membership } from "../orders/authorization.ts";
import type { OperatorDeps } from "../orders/operations/act.ts";
import type { AttentionAlerts } from "../orders/operations/report.ts";
import type { SubmitDeps } from "../orders/submit.ts";
import type { Store } from "../store/db.ts";
import type { MetadataSeal } from "./metadata.ts";

export interface SlackContext {
  customer: Customer;
  store: Store;
  /** The order workflow's dependencies (store, jobs, authorizer, clock, ids). */
  orders: SubmitDeps;
  /** Approvers' decisions (store, jobs, membership, clock). */
  approvals: ApprovalDeps;
  logger: Logger;
  now: () => Date;
  /**
   * How long a state-changing click may take to be decided before its ack (Slack waits 3 s): past it, the decision
   * rolls back and the clicker is told to click again (src/orders/click-deadline.ts).
   */
  clickDecisionMs: number;
  /** For dates in App Home and status lines: the customer's (`customer.timeZone`). */
  timeZone: string;
  /** Seals the order modal's `private_metadata` and checks it on the way back (./metadata.ts). */
  metadata: MetadataSeal;
  /** Admins' actions on alerts and App Home (src/orders/operations/): who is an admin, the store and queue, the alerts. */
  operators: {
    membership: Pick<Membership, "isAmong">;
    deps: OperatorDeps;
    alerts: AttentionAlerts;
  };
}
