import type { Json } from "./state.ts";

/**
 * `view.state.values` as Slack builds it for a payload: one entry per input block (and per
 * interactive element the user touched in an actions/section block), each shaped by element type
 * (`value`, `selected_option`, `selected_date`, ...). Untouched inputs carry their initial value, or
 * null, exactly like a real submission.
 */

export type ViewValues = Record<string, Record<string, Json>>;

/** What a test or the demo "types": a string, a string list (multi-selects, checkboxes), or an option. */
export type TypedValue = string | number | string[] | { value: string; text?: string } | null;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function optionsOf(element: Json): Json[] {
  const flat: Json[] = [];
  if (Array.isArray(element.options)) flat.push(...element.options.filter(isObject));
  if (Array.isArray(element.option_groups)) {
    for (const g of element.option_groups)
      if (isObject(g) && Array.isArray(g.options)) flat.push(...g.options.filter(isObject));
  }
  return flat;
}

function option(element: Json, v: TypedValue): Json | null {
  if (v === null || v === undefined) return null;
  const value = typeof v === "object" && !Array.isArray(v) ? v.value : String(v);
  const found = optionsOf(element).find((o) => o.value === value);
  if (found) return { text: found.text, value };
  if (element.type === "static_select" || element.type === "radio_buttons" || element.type === "checkboxes") {
    throw new Error(`"${value}" is not one of the options of ${String(element.action_id)}`);
  }
  // External selects: the label came from the app's options response; use what we were given.
  const text = typeof v === "object" && !Array.isArray(v) && v.text ? v.text : value;
  return { text: { type: "plain_text", text, emoji: true }, value };
}

const list = (v: TypedValue): string[] =>
  v === null ? [] : Array.isArray(v) ? v : [typeof v === "object" ? v.value : String(v)];

/** The state entry for one element, from a typed value (or its initial value when `typed` is undefined). */
export function elementState(element: Json, typed: TypedValue | undefined): Json {
  const type = String(element.type);
  const touched = typed !== undefined;
  switch (type) {
    case "plain_text_input":
    case "email_text_input":
    case "url_text_input":
    case "number_input": {
      const value = touched ? (typed === null ? null : String(typed)) : (element.initial_value ?? null);
      return { type, value: value === "" ? null : value };
    }
    case "static_select":
    case "external_select":
    case "radio_buttons":
      return { type, selected_option: touched ? option(element, typed) : (element.initial_option ?? null) };
    case "multi_static_select":
    case "multi_external_select":
    case "checkboxes":
      return {
        type,
        selected_options: touched
          ? list(typed).map((v) => option(element, v))
          : (element.initial_options ?? []),
      };
    case "users_select":
      return { type, selected_user: touched ? typed : (element.initial_user ?? null) };
    case "multi_users_select":
      return { type, selected_users: touched ? list(typed) : (element.initial_users ?? []) };
    case "conversations_select":
      return { type, selected_conversation: touched ? typed : (element.initial_conversation ?? null) };
    case "channels_select":
      return { type, selected_channel: touched ? typed : (element.initial_channel ?? null) };
    case "datepicker":
      return { type, selected_date: touched ? typed : (element.initial_date ?? null) };
    case "timepicker":
      return { type, selected_time: touched ? typed : (element.initial_time ?? null) };
    default:
      return { type, value: touched ? typed : null };
  }
}

/**
 * Builds state values for a view definition. `typed` is keyed by block_id (the input block's element)
 * or by action_id when that is unique in the view; `previous` are values already in the view.
 */
export function viewState(
  definition: Json,
  previous: ViewValues,
  typed: Record<string, TypedValue> = {},
): ViewValues {
  const blocks = Array.isArray(definition.blocks) ? definition.blocks.filter(isObject) : [];
  const out: ViewValues = {};
  const used = new Set<string>();
  for (const block of blocks) {
    const blockId = typeof block.block_id === "string" ? block.block_id : undefined;
    if (!blockId) continue;
    const elements =
      block.type === "input" && isObject(block.element)
        ? [block.element]
        : block.type === "actions" && Array.isArray(block.elements)
          ? block.elements.filter(isObject)
          : block.type === "section" && isObject(block.accessory)
            ? [block.accessory]
            : [];
    for (const element of elements) {
      const actionId = typeof element.action_id === "string" ? element.action_id : undefined;
      if (!actionId || element.type === "button" || element.type === "overflow") continue;
      const key = blockId in typed ? blockId : actionId in typed ? actionId : undefined;
      if (key !== undefined) used.add(key);
      const prior = previous[blockId]?.[actionId];
      if (key === undefined && prior === undefined && block.type !== "input") continue;
      const state =
        key !== undefined
          ? elementState(element, typed[key] ?? null)
          : (prior ?? elementState(element, undefined));
      out[blockId] = { ...out[blockId], [actionId]: state };
    }
  }
  const unknown = Object.keys(typed).filter((k) => !used.has(k));
  if (unknown.length > 0) {
    throw new Error(
      `No input with block_id or action_id ${unknown.map((k) => `"${k}"`).join(", ")} in this view`,
    );
  }
  return out;
}
