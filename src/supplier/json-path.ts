/**
 * Paths into a supplier's JSON event: dotted (`order.lines.0.sku`) or JSON Pointer (`/order/lines/0/sku`, RFC 6901).
 * A path is compiled once, when the mapping is read; reading it is a loop, never recursion, and sees only a
 * value's own properties, so a hostile body (`__proto__`, `constructor`, arrays where objects are expected, very
 * deep nesting) reads as "nothing there" rather than as something inherited or as a crash.
 */

/** Deeper than any body the receiver accepts (it refuses nesting beyond 64). */
export const MAX_PATH_SEGMENTS = 64;
const MAX_PATH_LENGTH = 1_000;

export interface JsonPath {
  /** As written in the configuration, for messages. */
  readonly text: string;
  readonly keys: readonly string[];
  /** Per segment, the array index it names (a canonical non-negative integer), or -1. */
  readonly indexes: readonly number[];
}

export type CompiledPath = { ok: true; path: JsonPath } | { ok: false; problem: string };

const INDEX = /^(0|[1-9][0-9]{0,8})$/;

const EXAMPLES = "write a dotted path such as `order.id` or a JSON Pointer such as `/order/id`";

/** Compiles a path, or says in one sentence why the text cannot be one. */
export function compilePath(text: string): CompiledPath {
  const problem = (why: string): CompiledPath => ({
    ok: false,
    problem: `\`${text.length > 80 ? `${text.slice(0, 80)}…` : text}\` is not a path: ${why}`,
  });
  if (text.length === 0) return { ok: false, problem: `an empty path names nothing: ${EXAMPLES}` };
  if (text.length > MAX_PATH_LENGTH) return problem(`it is longer than ${MAX_PATH_LENGTH} characters`);
  if (text.trim() !== text) return problem("it starts or ends with a space");
  let keys: string[];
  if (text.startsWith("/")) {
    keys = [];
    for (const raw of text.slice(1).split("/")) {
      if (/~(?![01])/.test(raw)) {
        return problem("in a JSON Pointer `~` must be followed by 0 (for `~`) or 1 (for `/`)");
      }
      keys.push(raw.replace(/~1/g, "/").replace(/~0/g, "~"));
    }
  } else {
    if (text.startsWith("#"))
      return problem("write a JSON Pointer without the leading `#`, e.g. `/order/id`");
    if (text.includes("/")) {
      return problem(
        "a JSON Pointer starts with `/` (e.g. `/order/id`); a dotted path has no `/` (a key containing `/` needs a JSON Pointer, with `/` written `~1`)",
      );
    }
    if (text.startsWith(".")) return problem(`it starts with a dot; ${EXAMPLES}`);
    if (text.endsWith(".")) return problem(`it ends with a dot; ${EXAMPLES}`);
    if (text.includes("..")) {
      return problem("it has two dots in a row (a key containing a dot needs a JSON Pointer)");
    }
    keys = text.split(".");
  }
  if (keys.length > MAX_PATH_SEGMENTS) {
    return problem(`it has more than ${MAX_PATH_SEGMENTS} segments, deeper than any event we accept`);
  }
  return {
    ok: true,
    path: { text, keys, indexes: keys.map((key) => (INDEX.test(key) ? Number(key) : -1)) },
  };
}

/** The value at `path`, or undefined when any step is missing, inherited or of the wrong kind. */
export function readPath(root: unknown, path: JsonPath): unknown {
  let current: unknown = root;
  const { keys, indexes } = path;
  for (let i = 0; i < keys.length; i++) {
    if (typeof current !== "object" || current === null) return undefined;
    if (Array.isArray(current)) {
      const index = indexes[i] as number;
      if (index < 0 || index >= current.length) return undefined;
      current = current[index];
    } else {
      const key = keys[i] as string;
      if (!Object.hasOwn(current, key)) return undefined;
      current = (current as Record<string, unknown>)[key];
    }
  }
  return current;
}
