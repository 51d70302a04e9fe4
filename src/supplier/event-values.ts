/**
 * Reading one value of a supplier's event at a configured path, as the kind of value our event needs (text, an
 * integer, a time, a date, a URL). A value that is absent (missing, null, blank text) is "nothing"; a value that
 * is present but unusable is never silently dropped: it makes the event unreadable, with one sentence naming the
 * mapping key and the path, so a wrong mapping shows up in `events check` and in the admins' alert.
 */
import { z } from "zod";
import { compilePath, type JsonPath, readPath } from "./json-path.ts";

/**
 * Longest identifier accepted from an event (its id, type, correlation id, document number, a status or item
 * number): a longer one is a broken mapping or a hostile body, and the database could not index it. Free text (a
 * reason, a carrier's name) has no limit of its own beyond the body's: Slack's replies cut it short.
 */
export const MAX_TEXT_LENGTH = 500;

/** Why a body cannot be read: thrown inside the mapper, returned from `map` as `{ ok: false }`. */
export class Unreadable {
  constructor(
    readonly reason: string,
    readonly field: string | undefined,
  ) {}
}

export interface Field {
  /** The mapping key, e.g. `supplierEvents.fields.id`. */
  readonly key: string;
  readonly path: JsonPath;
}

type Fields<T> = { [K in keyof T]: null extends T[K] ? Field | null : Field };

/** Compiles one group of the mapping's paths; the schema has already refused any that cannot be one. */
export function compileFields<T extends Record<string, string | null>>(prefix: string, paths: T): Fields<T> {
  const out: Record<string, Field | null> = {};
  for (const [name, text] of Object.entries(paths)) {
    if (text === null) {
      out[name] = null;
      continue;
    }
    const compiled = compilePath(text);
    if (!compiled.ok) throw new RangeError(`${prefix}.${name}: ${compiled.problem}`);
    out[name] = { key: `${prefix}.${name}`, path: compiled.path };
  }
  return out as Fields<T>;
}

export function kindOf(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "object":
      return "an object";
    case "boolean":
      return "true/false";
    case "number":
      return "a number";
    case "string":
      return "text";
    default:
      return typeof value;
  }
}

/** A value quoted for a reason, cut short: reasons are stored and shown, bodies may be hostile. */
export function shortValue(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}

const at = (field: Field, where: string | undefined) =>
  `\`${field.path.text}\`${where ? ` in ${where}` : ""} (${field.key})`;

function missing(field: Field, need: string, where?: string): Unreadable {
  return new Unreadable(`no value at ${at(field, where)}: ${need}`, field.key);
}

function wrong(field: Field, value: unknown, expected: string, where?: string): Unreadable {
  return new Unreadable(`${at(field, where)} is ${kindOf(value)}, not ${expected}`, field.key);
}

/**
 * Text at the path (numbers are read as their text: ids and tracking numbers are often sent as numbers), trimmed.
 * `need` says why it is required; `null` makes it optional.
 */
export function textAt(body: object, field: Field, need: string, where?: string, free?: boolean): string;
export function textAt(
  body: object,
  field: Field,
  need: null,
  where?: string,
  free?: boolean,
): string | undefined;
export function textAt(
  body: object,
  field: Field,
  need: string | null,
  where?: string,
  free = false,
): string | undefined {
  const value = readPath(body, field.path);
  let text: string | undefined;
  if (typeof value === "string") {
    text = value.trim();
    if (!free && text.length > MAX_TEXT_LENGTH) {
      throw new Unreadable(
        `${at(field, where)} is ${text.length} characters long, more than the ${MAX_TEXT_LENGTH} accepted`,
        field.key,
      );
    }
    if (text === "") text = undefined;
  } else if (typeof value === "number" && Number.isFinite(value)) {
    text = String(value);
  } else if (value !== undefined && value !== null) {
    throw wrong(field, value, "text", where);
  }
  if (text === undefined && need !== null) throw missing(field, need, where);
  return text;
}

const INTEGER = /^[+-]?[0-9]+$/;

/** An integer ≥ `min`, given as a number or as text of digits. Required. */
export function integerAt(body: object, field: Field, min: number, need: string, where?: string): number {
  const value = readPath(body, field.path);
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
    throw missing(field, need, where);
  }
  let number: number | undefined;
  if (typeof value === "number") number = value;
  else if (typeof value === "string" && INTEGER.test(value.trim())) number = Number(value.trim());
  if (number === undefined || !Number.isSafeInteger(number)) {
    const shown =
      typeof value === "string"
        ? shortValue(value)
        : typeof value === "number"
          ? String(value)
          : kindOf(value);
    throw new Unreadable(`${at(field, where)} is ${shown}, not a whole number`, field.key);
  }
  if (number < min) {
    throw new Unreadable(`${at(field, where)} is ${number}; it must be at least ${min}`, field.key);
  }
  return number;
}

/** Unix seconds below this, milliseconds from it (1e11 s is the year 5138; 1e11 ms is 1973). */
const SECONDS_BELOW = 1e11;
/** The latest time a Date can hold. */
const MAX_MS = 8.64e15;
const NUMERIC = /^[0-9]+(\.[0-9]+)?$/;
const isoDateTime = z.iso.datetime({ offset: true });

function fromEpoch(value: number): string | undefined {
  if (!Number.isFinite(value) || value <= 0) return undefined;
  const ms = Math.round(value < SECONDS_BELOW ? value * 1000 : value);
  return ms <= MAX_MS ? new Date(ms).toISOString() : undefined;
}

/** When the event happened, as an ISO string: ISO 8601 with an offset as given, or Unix seconds/milliseconds. */
export function timeAt(body: object, field: Field): string {
  const value = readPath(body, field.path);
  const text = typeof value === "string" ? value.trim() : undefined;
  if (value === undefined || value === null || text === "") {
    throw missing(field, "an event needs the time it happened");
  }
  let iso: string | undefined;
  if (typeof value === "number") iso = fromEpoch(value);
  else if (text !== undefined && text.length <= 64) {
    if (NUMERIC.test(text)) iso = fromEpoch(Number(text));
    else if (isoDateTime.safeParse(text).success && !Number.isNaN(Date.parse(text))) iso = text;
  }
  if (iso === undefined) {
    const shown = text !== undefined ? shortValue(text) : kindOf(value);
    throw new Unreadable(
      `${at(field, undefined)} is ${shown}, not a time: send ISO 8601 with a UTC offset (2026-11-24T09:00:00+01:00) or Unix seconds or milliseconds`,
      field.key,
    );
  }
  return iso;
}

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?=$|T)/;

/** A date (`YYYY-MM-DD`) from a date, a date-time (its date as written) or Unix seconds/milliseconds. Optional. */
export function dateAt(body: object, field: Field): string | undefined {
  const value = readPath(body, field.path);
  if (value === undefined || value === null) return undefined;
  let date: string | undefined;
  if (typeof value === "number") date = fromEpoch(value)?.slice(0, 10);
  else if (typeof value === "string") {
    const text = value.trim();
    if (text === "") return undefined;
    const match = text.length <= 64 ? DATE.exec(text) : null;
    if (match) {
      const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
      const real = new Date(Date.UTC(year, month - 1, day));
      const isDay = real.getUTCMonth() === month - 1 && real.getUTCDate() === day;
      const isTime = text.length === 10 || !Number.isNaN(Date.parse(text));
      if (isDay && isTime) date = text.slice(0, 10);
    }
  }
  if (date === undefined) {
    const shown = typeof value === "string" ? shortValue(value) : kindOf(value);
    throw new Unreadable(
      `${at(field, undefined)} is ${shown}, not a date: send YYYY-MM-DD or an ISO 8601 date-time`,
      field.key,
    );
  }
  return date;
}

/** A URL (as `new URL` reads one). Optional. */
export function urlAt(body: object, field: Field): string | undefined {
  const url = textAt(body, field, null);
  if (url === undefined) return undefined;
  if (!URL.canParse(url)) {
    throw new Unreadable(`${at(field, undefined)} is ${shortValue(url)}, not a URL`, field.key);
  }
  return url;
}
