export * from "./db.ts";
export * from "./errors.ts";
export { loadMigrations, MIGRATIONS_DIR, runMigrations } from "./migrate.ts";
export { LOCK_FILE_NAME } from "./pglite/lock.ts";
export type { NewEvent, StoredEvent } from "./repositories/events.ts";
export * as events from "./repositories/events.ts";
export * as orders from "./repositories/orders.ts";
export * as sequences from "./repositories/sequences.ts";
