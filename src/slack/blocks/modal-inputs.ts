/**
 * The modal's input blocks as the order form uses them: a problem found on a field replaces its hint (Slack shows
 * no error on a field a view opens with), so "Fix and resubmit" shows the supplier's objections where they belong.
 */
import type { types } from "@slack/bolt";
import type { FieldErrors } from "../../orders/fields.ts";
import { ACTION } from "./ids.ts";
import { plain } from "./text.ts";

type KnownBlock = types.KnownBlock;

export const hint = (errors: FieldErrors | undefined, field: string, fallback?: string) => {
  const problems = errors?.[field];
  if (problems && problems.length > 0) return { hint: plain(`⚠️ ${problems.join(" ")}`, 2000) };
  return fallback ? { hint: plain(fallback, 2000) } : {};
};

export function textInput(opts: {
  blockId: string;
  label: string;
  value: string;
  optional?: boolean;
  placeholder?: string;
  multiline?: boolean;
  maxLength?: number;
  hint?: { hint: types.PlainTextElement } | Record<string, never>;
}): KnownBlock {
  return {
    type: "input",
    block_id: opts.blockId,
    optional: opts.optional ?? false,
    label: plain(opts.label, 2000),
    element: {
      type: "plain_text_input",
      action_id: ACTION.value,
      ...(opts.value ? { initial_value: opts.value.slice(0, opts.maxLength ?? 3000) } : {}),
      ...(opts.placeholder ? { placeholder: plain(opts.placeholder, 150) } : {}),
      ...(opts.multiline ? { multiline: true } : {}),
      ...(opts.maxLength ? { max_length: opts.maxLength } : {}),
    },
    ...(opts.hint ?? {}),
  } as KnownBlock;
}

export const header = (text: string): KnownBlock => ({ type: "header", text: plain(text, 150) });
