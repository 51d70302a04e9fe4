/**
 * The shape of a body we could not read: its field names and value types, never its values, for the admins'
 * alert ("the first one's field names and types with values redacted") and `events check`. Iterative, and
 * limited in depth, nodes and fields listed, so a hostile body costs little. `key` is the same for two bodies of
 * the same shape (whatever their values and list lengths), so unreadable deliveries are grouped by it.
 */
import { createHash } from "node:crypto";

export type ShapeType = "string" | "number" | "boolean" | "null" | "object" | "array";

export interface BodyShape {
  /** A short stable hash of the sorted `path:type` list. */
  key: string;
  /** Dotted paths in the body's order; list elements as `[]` (`shipment.items[].sku`). */
  fields: Array<{ path: string; type: ShapeType }>;
  /** Distinct fields beyond those listed. */
  more: number;
}

export const SHAPE_MAX_FIELDS = 60;
const MAX_DEPTH = 16;
/** Values visited at most; a larger body's shape is that of its first part. */
const MAX_NODES = 10_000;
/** Elements of one list looked at: their shapes are merged. */
const MAX_ELEMENTS = 50;
/** A longer key is likely data used as a key (an id, an e-mail): it is not shown. */
const MAX_KEY = 64;
const ROOT = "(body)";

function typeOf(value: unknown): ShapeType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "number";
    case "boolean":
      return "boolean";
    default:
      return "object";
  }
}

const keyName = (key: string) => (key.length > MAX_KEY || key === "" ? "<key>" : key);

export function describeShape(body: unknown): BodyShape {
  const seen = new Set<string>();
  const fields: BodyShape["fields"] = [];
  let distinct = 0;
  const note = (path: string, type: ShapeType) => {
    const entry = `${path}:${type}`;
    if (seen.has(entry)) return;
    seen.add(entry);
    distinct += 1;
    if (fields.length < SHAPE_MAX_FIELDS) fields.push({ path, type });
  };
  // Depth-first in the body's order: children are pushed in reverse.
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: "", depth: 0 }];
  let visited = 0;
  while (stack.length > 0 && visited < MAX_NODES) {
    const { value, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    visited += 1;
    const type = typeOf(value);
    if (path !== "" || type !== "object") note(path === "" ? ROOT : path, type);
    if (depth >= MAX_DEPTH || typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) {
      const element = `${path === "" ? ROOT : path}[]`;
      for (let i = Math.min(value.length, MAX_ELEMENTS) - 1; i >= 0; i--) {
        stack.push({ value: value[i], path: element, depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      const child = path === "" ? keyName(key) : `${path}.${keyName(key)}`;
      stack.push({ value: (value as Record<string, unknown>)[key], path: child, depth: depth + 1 });
    }
  }
  const key = createHash("sha256")
    .update([...seen].sort().join("\n"))
    .digest("hex")
    .slice(0, 16);
  return { key, fields, more: distinct - fields.length };
}
