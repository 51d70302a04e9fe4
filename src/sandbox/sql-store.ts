/**
 * The sandbox's orders in a PostgreSQL-dialect database handed to it (`SandboxDatabase`), in its own tables
 * created by its own idempotent SQL: the sandbox is a separate service, not part of Order Desk's schema, and it
 * never opens the app's store itself: its composition root (the `order-desk sandbox` command, a test) does.
 * Duplicate detection is a unique constraint, so it holds across restarts and concurrent requests.
 */
import type { SupplierEvent, SupplierOrderState } from "../supplier/events.ts";
import type { CreateOrderRequest } from "../supplier/schema.ts";
import type { PlannedEvent } from "./fulfilment.ts";
import type {
  CreateResult,
  DeliveryAttempt,
  DeliveryState,
  ListOptions,
  PendingDelivery,
  SandboxEventRecord,
  SandboxOrder,
  SandboxStore,
} from "./store.ts";

// biome-ignore lint/suspicious/noExplicitAny: a row's columns are read and checked one by one in toOrder.
type Row = Record<string, any>;

/** What the sandbox needs of a database (Order Desk's store fits it): SQL, transactions, closing. */
export interface SandboxDatabase {
  query(text: string, params?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
  transaction<T>(fn: (tx: Pick<SandboxDatabase, "query">) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export const SANDBOX_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS sandbox_orders (
  correlation_id text PRIMARY KEY,
  customer text NOT NULL,
  external_document_number text NOT NULL,
  api_key text NOT NULL,
  request jsonb NOT NULL,
  plan jsonb NOT NULL,
  next_step integer NOT NULL DEFAULT 0,
  status text NOT NULL,
  status_at timestamptz NOT NULL,
  accepted_at timestamptz NOT NULL,
  UNIQUE (customer, external_document_number)
);
CREATE INDEX IF NOT EXISTS sandbox_orders_accepted_at ON sandbox_orders (accepted_at);
CREATE TABLE IF NOT EXISTS sandbox_events (
  id text PRIMARY KEY,
  correlation_id text NOT NULL REFERENCES sandbox_orders (correlation_id),
  seq integer NOT NULL,
  payload jsonb NOT NULL,
  emitted_at timestamptz NOT NULL,
  delivery text NOT NULL,
  delivered_at timestamptz,
  UNIQUE (correlation_id, seq)
);
CREATE INDEX IF NOT EXISTS sandbox_events_pending ON sandbox_events (delivery) WHERE delivery = 'pending';
CREATE TABLE IF NOT EXISTS sandbox_deliveries (
  event_id text NOT NULL REFERENCES sandbox_events (id),
  attempt integer NOT NULL,
  at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  http_status integer,
  error text,
  duplicate boolean NOT NULL DEFAULT false,
  PRIMARY KEY (event_id, attempt)
);
`;

const ORDER_COLUMNS =
  "correlation_id, customer, external_document_number, api_key, request, plan, next_step, status, status_at, accepted_at";

function ms(value: unknown): number {
  return value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
}

function toOrder(row: Row): SandboxOrder {
  return {
    correlationId: row.correlation_id,
    customer: row.customer,
    externalDocumentNumber: row.external_document_number,
    apiKey: row.api_key,
    request: row.request as CreateOrderRequest,
    plan: row.plan as PlannedEvent[],
    nextStep: row.next_step,
    status: row.status as SupplierOrderState,
    statusAt: ms(row.status_at),
    acceptedAt: ms(row.accepted_at),
  };
}

export class SqlSandboxStore implements SandboxStore {
  private constructor(
    private readonly db: SandboxDatabase,
    private readonly ownsStore: boolean,
  ) {}

  /** Creates the sandbox tables if needed. `ownsStore`: close the project store with this one. */
  static async open(db: SandboxDatabase, options: { ownsStore: boolean }): Promise<SqlSandboxStore> {
    await db.query(SANDBOX_SCHEMA_SQL);
    return new SqlSandboxStore(db, options.ownsStore);
  }

  async createOrder(order: SandboxOrder): Promise<CreateResult> {
    const inserted = await this.db.query(
      `INSERT INTO sandbox_orders (${ORDER_COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (customer, external_document_number) DO NOTHING
       RETURNING correlation_id`,
      [
        order.correlationId,
        order.customer,
        order.externalDocumentNumber,
        order.apiKey,
        JSON.stringify(order.request),
        JSON.stringify(order.plan),
        order.nextStep,
        order.status,
        new Date(order.statusAt),
        new Date(order.acceptedAt),
      ],
    );
    if (inserted.rows.length > 0) return { created: true };
    const existing = await this.db.query(
      "SELECT correlation_id FROM sandbox_orders WHERE customer = $1 AND external_document_number = $2",
      [order.customer, order.externalDocumentNumber],
    );
    return { created: false, existingCorrelationId: existing.rows[0]?.correlation_id ?? "" };
  }

  async getOrder(correlationId: string): Promise<SandboxOrder | null> {
    const result = await this.db.query(
      `SELECT ${ORDER_COLUMNS} FROM sandbox_orders WHERE correlation_id = $1`,
      [correlationId],
    );
    const row = result.rows[0];
    return row ? toOrder(row) : null;
  }

  async appendEvent(
    correlationId: string,
    record: { event: SupplierEvent; seq: number; emittedAt: number; delivery: DeliveryState },
    status: SupplierOrderState | null,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO sandbox_events (id, correlation_id, seq, payload, emitted_at, delivery)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
        [
          record.event.id,
          correlationId,
          record.seq,
          JSON.stringify(record.event),
          new Date(record.emittedAt),
          record.delivery,
        ],
      );
      if (inserted.rowCount === 0) return;
      await tx.query(
        `UPDATE sandbox_orders
            SET next_step = GREATEST(next_step, $2),
                status = COALESCE($3, status),
                status_at = CASE WHEN $3::text IS NULL THEN status_at ELSE $4 END
          WHERE correlation_id = $1`,
        [correlationId, record.seq + 1, status, new Date(record.emittedAt)],
      );
    });
  }

  async recordAttempt(eventId: string, attempt: DeliveryAttempt): Promise<void> {
    await this.db.query(
      `INSERT INTO sandbox_deliveries (event_id, attempt, at, duration_ms, http_status, error, duplicate)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [
        eventId,
        attempt.attempt,
        new Date(attempt.at),
        Math.round(attempt.durationMs),
        attempt.httpStatus,
        attempt.error,
        attempt.duplicate,
      ],
    );
  }

  async setDelivery(eventId: string, delivery: DeliveryState, deliveredAt: number | null): Promise<void> {
    await this.db.query("UPDATE sandbox_events SET delivery = $2, delivered_at = $3 WHERE id = $1", [
      eventId,
      delivery,
      deliveredAt === null ? null : new Date(deliveredAt),
    ]);
  }

  async listOrders(options: ListOptions): Promise<SandboxOrder[]> {
    const params: unknown[] = [options.limit];
    let where = "";
    if (options.customer !== undefined) {
      params.push(options.customer);
      where = "WHERE customer = $2";
    }
    const result = await this.db.query(
      `SELECT ${ORDER_COLUMNS} FROM sandbox_orders ${where} ORDER BY accepted_at DESC, correlation_id LIMIT $1`,
      params,
    );
    return result.rows.map(toOrder);
  }

  async events(correlationId: string): Promise<SandboxEventRecord[]> {
    const events = await this.db.query(
      `SELECT id, seq, payload, emitted_at, delivery, delivered_at FROM sandbox_events
        WHERE correlation_id = $1 ORDER BY seq`,
      [correlationId],
    );
    const attempts = await this.db.query(
      `SELECT d.event_id, d.attempt, d.at, d.duration_ms, d.http_status, d.error, d.duplicate
         FROM sandbox_deliveries d JOIN sandbox_events e ON e.id = d.event_id
        WHERE e.correlation_id = $1 ORDER BY d.event_id, d.attempt`,
      [correlationId],
    );
    const byEvent = new Map<string, DeliveryAttempt[]>();
    for (const row of attempts.rows) {
      const list = byEvent.get(row.event_id) ?? [];
      list.push({
        attempt: row.attempt,
        at: ms(row.at),
        durationMs: row.duration_ms,
        httpStatus: row.http_status,
        error: row.error,
        duplicate: row.duplicate,
      });
      byEvent.set(row.event_id, list);
    }
    return events.rows.map((row) => ({
      event: row.payload as SupplierEvent,
      seq: row.seq,
      emittedAt: ms(row.emitted_at),
      delivery: row.delivery as DeliveryState,
      deliveredAt: row.delivered_at === null ? null : ms(row.delivered_at),
      attempts: byEvent.get(row.id) ?? [],
    }));
  }

  async unfinishedOrders(): Promise<SandboxOrder[]> {
    const result = await this.db.query(
      `SELECT ${ORDER_COLUMNS} FROM sandbox_orders
        WHERE next_step < jsonb_array_length(plan) ORDER BY accepted_at, correlation_id`,
    );
    return result.rows.map(toOrder);
  }

  async pendingDeliveries(): Promise<PendingDelivery[]> {
    const result = await this.db.query(
      `SELECT e.payload, e.seq, e.seq = jsonb_array_length(o.plan) - 1 AS last,
              (SELECT count(*)::int FROM sandbox_deliveries d WHERE d.event_id = e.id) AS attempts
         FROM sandbox_events e JOIN sandbox_orders o ON o.correlation_id = e.correlation_id
        WHERE e.delivery = 'pending'
        ORDER BY o.accepted_at, o.correlation_id, e.seq`,
    );
    return result.rows.map((row) => ({
      event: row.payload as SupplierEvent,
      seq: row.seq,
      last: row.last,
      attempts: row.attempts,
    }));
  }

  async close(): Promise<void> {
    if (this.ownsStore) await this.db.close();
  }
}
