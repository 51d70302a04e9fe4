/**
 * What the upgrade fixtures and the upgrade test share: the Slack workspace (people, channels), the tickets of
 * each kind of work left in flight, the environment of Order Desk, and the manifest's shape. Imported by the
 * scenario inside a checkout of the previous release and by the current test, so it imports nothing.
 */
import { fileURLToPath } from "node:url";

export const CUSTOMER_CONFIG = fileURLToPath(new URL("./order-desk.config.yml", import.meta.url));

export const AGENT = "U0AGENT01";
export const ADMIN = "U0UPADMIN";
export const APPROVER_REMIND = "U0APPROVA";
export const APPROVER_EXPIRE = "U0APPROVB";
export const CHANNELS = {
  admin: "C0UPADMIN",
  placements: "C0UPPLACE",
  events: "C0UPEVENT",
  reminders: "C0UPREMIND",
  expiries: "C0UPEXPIRE",
} as const;

/** The tickets of each kind, in the order the scenario orders them. */
export const TICKETS = {
  /** Placed, then Slack fails in their channel: later events are stored, not posted. */
  events: ["UPG-101", "UPG-102"],
  /** The supplier answers 503 to every create: the place-order job waits in retry. */
  retried: ["UPG-201", "UPG-202"],
  /** The supplier takes the first create, but the answer is lost (503); later creates get 503 too. */
  placedUnknown: ["UPG-203"],
  /** The supplier answers 401 to every key: the placement fails for good, an admin may retry it. */
  failed: ["UPG-301", "UPG-302"],
  /** Waiting for approval, the reminder due once the fixture is 72 s old. */
  reminders: ["UPG-401", "UPG-402"],
  /** Waiting for approval, reminded already, the expiry due once the fixture is 3 minutes old. */
  expiries: ["UPG-501", "UPG-502"],
} as const;

export const SLACK = {
  users: [
    { id: AGENT, name: "alice", realName: "Alice Agent" },
    { id: ADMIN, name: "ivan", realName: "Ivan Admin" },
    { id: APPROVER_REMIND, name: "ada", realName: "Ada Approver" },
    { id: APPROVER_EXPIRE, name: "bob", realName: "Bob Approver" },
  ],
  channels: Object.entries(CHANNELS).map(([name, id]) => ({ id, name: `upgrade-${name}` })),
};

/** Order Desk's environment in both runs (besides the world's own and the store). */
export const DESK_ENV = {
  ORDER_DESK_ENV: "test",
  LOG_LEVEL: "info",
  SLACK_TIMEOUT_MS: "2000",
  SUPPLIER_TIMEOUT_MS: "3000",
  WEBHOOK_SETTLE_MS: "150",
  SHUTDOWN_GRACE_MS: "2000",
};

/** Sandbox time compression in both runs: a one-parcel order's events come over ~40 s. */
export const SPEED = 60;

export interface ManifestOrder {
  ticket: string;
  orderId: string;
  documentNumber: string;
  status: string;
  channel: string;
  /** The order's message in its channel (its thread holds the updates). */
  messageTs: string | null;
}

export interface ManifestJob {
  id: string;
  queue: string;
  state: string;
  startAfter: string;
  orderId: string | null;
}

/** What is in flight in a fixture, written next to it by the scenario. */
export interface Manifest {
  /** The release and commit whose code made the fixture. */
  version: string;
  revision: string;
  store: "pglite" | "postgres";
  stop: "sigterm" | "sigkill";
  builtAt: string;
  /** Files beside the manifest. */
  files: { store: string; sandbox: string; slack: string; customerConfig: string };
  orders: Record<string, ManifestOrder>;
  /** Tickets the sandbox holds already (each must stay there once). */
  atSupplier: string[];
  /** Placements in retry (or running when killed): placed exactly once after the upgrade. */
  retried: string[];
  /** Supplier events stored but not posted: each posted once, in its order's thread. */
  waitingEvents: Array<{ eventId: string; ticket: string; type: string }>;
  /** Approval orders due their reminder (not reminded yet), with the times stored on the order. */
  remindersDue: Array<{ ticket: string; approver: string; remindAt: string; expireAt: string }>;
  /** Approval orders reminded already, due their expiry. */
  expiriesDue: Array<{ ticket: string; approver: string; remindAt: string; expireAt: string }>;
  /** Jobs that failed for good: listed by `order-desk jobs list --failed`, each retried once by an admin. */
  failedJobs: Array<{ jobId: string; queue: string; ticket: string }>;
  /** Every job of the store when it was packed (pg-boss's table), for whoever converts them. */
  jobs: ManifestJob[];
}
