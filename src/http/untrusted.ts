/**
 * Values a caller sent us (headers, paths) as we may log them or repeat them in an answer: short, whatever was
 * sent. A refusal costs us little only if what we write about it is small too.
 */

/** Characters of a caller's value kept in logs and error messages. */
export const SHOWN_CHARS = 64;

/**
 * `value` cut to `max` characters, saying how long it was: `abc…(15000 characters)`. Header arrays (a repeated
 * header) are joined first; undefined stays undefined.
 */
export function clip(value: string | readonly string[] | undefined, max = SHOWN_CHARS): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === "string" ? value : value.join(", ");
  return text.length <= max ? text : `${text.slice(0, max)}…(${text.length} characters)`;
}
