/**
 * Block Kit validation with Slack's documented limits. Slack rejects a whole call when one block is
 * wrong and points at it with a JSON pointer; we answer the same way so a test fails on the exact
 * block a real workspace would refuse, instead of the demo working and production not.
 *
 * Limits: https://docs.slack.dev/reference/block-kit/blocks (and the element/composition pages).
 */

export type Surface = "message" | "modal" | "home";

export interface BlockProblem {
  message: string;
  pointer: string;
}

export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  messageText: 40_000,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  inputLabel: 2000,
  inputHint: 2000,
  blockId: 255,
  actionId: 255,
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  placeholder: 150,
  selectOptions: 100,
  optionGroups: 100,
  optionText: 75,
  optionValue: 150,
  optionDescription: 75,
  radioOptions: 10,
  checkboxOptions: 10,
  overflowOptions: 5,
  textInputMaxLength: 3000,
  imageAltText: 2000,
  modalTitle: 24,
  modalButton: 24,
  privateMetadata: 3000,
  callbackId: 255,
  externalId: 255,
} as const;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

class Collector {
  readonly problems: BlockProblem[] = [];
  add(pointer: string, message: string): void {
    this.problems.push({ pointer, message });
  }
}

function textObject(
  c: Collector,
  value: unknown,
  pointer: string,
  opts: { max: number; plainOnly?: boolean; required?: boolean },
): void {
  if (value === undefined) {
    if (opts.required !== false) c.add(pointer, "missing required field");
    return;
  }
  if (!isObject(value)) {
    c.add(pointer, "must be a text object");
    return;
  }
  const type = value.type;
  if (type !== "plain_text" && type !== "mrkdwn") {
    c.add(`${pointer}/type`, "must be one of plain_text, mrkdwn");
  } else if (opts.plainOnly && type !== "plain_text") {
    c.add(`${pointer}/type`, "must be plain_text");
  }
  const text = value.text;
  if (typeof text !== "string") c.add(`${pointer}/text`, "must be a string");
  else if (text.length < 1) c.add(`${pointer}/text`, "must be more than 0 characters");
  else if (text.length > opts.max) c.add(`${pointer}/text`, `must be less than ${opts.max + 1} characters`);
}

function maxString(c: Collector, value: unknown, pointer: string, max: number, required = false): void {
  if (value === undefined) {
    if (required) c.add(pointer, "missing required field");
    return;
  }
  if (typeof value !== "string") c.add(pointer, "must be a string");
  else if (value.length > max) c.add(pointer, `must be less than ${max + 1} characters`);
}

function options(
  c: Collector,
  list: unknown,
  pointer: string,
  max: number,
  textPlainOnly: boolean,
): unknown[] {
  if (!Array.isArray(list)) {
    c.add(pointer, "must be an array");
    return [];
  }
  if (list.length < 1) c.add(pointer, "must provide at least 1 items");
  if (list.length > max) c.add(pointer, `no more than ${max} items allowed`);
  const values: unknown[] = [];
  list.forEach((opt, i) => {
    const p = `${pointer}/${i}`;
    if (!isObject(opt)) {
      c.add(p, "must be an option object");
      return;
    }
    textObject(c, opt.text, `${p}/text`, { max: LIMITS.optionText, plainOnly: textPlainOnly });
    maxString(c, opt.value, `${p}/value`, LIMITS.optionValue, true);
    if (opt.description !== undefined) {
      textObject(c, opt.description, `${p}/description`, { max: LIMITS.optionDescription, plainOnly: true });
    }
    values.push(opt.value);
  });
  return values;
}

function initialOptionIn(c: Collector, el: Json, values: unknown[], pointer: string): void {
  if (isObject(el.initial_option) && !values.includes(el.initial_option.value)) {
    c.add(`${pointer}/initial_option`, "must match one of the options");
  }
  if (Array.isArray(el.initial_options)) {
    el.initial_options.forEach((o, i) => {
      if (!isObject(o) || !values.includes(o.value)) {
        c.add(`${pointer}/initial_options/${i}`, "must match one of the options");
      }
    });
  }
}

const SELECTS = new Set([
  "static_select",
  "external_select",
  "users_select",
  "conversations_select",
  "channels_select",
  "multi_static_select",
  "multi_external_select",
  "multi_users_select",
  "multi_conversations_select",
  "multi_channels_select",
]);

const INPUT_ELEMENTS = new Set([
  ...SELECTS,
  "plain_text_input",
  "email_text_input",
  "url_text_input",
  "number_input",
  "datepicker",
  "timepicker",
  "datetimepicker",
  "radio_buttons",
  "checkboxes",
  "rich_text_input",
  "file_input",
]);

const ACTION_ELEMENTS = new Set([
  ...SELECTS,
  "button",
  "overflow",
  "datepicker",
  "timepicker",
  "datetimepicker",
  "radio_buttons",
  "checkboxes",
  "workflow_button",
  "rich_text_input",
]);

function element(
  c: Collector,
  el: unknown,
  pointer: string,
  allowed: Set<string>,
  actionIds: Set<string>,
): void {
  if (!isObject(el)) {
    c.add(pointer, "must be an element object");
    return;
  }
  const type = el.type;
  if (typeof type !== "string" || !allowed.has(type)) {
    c.add(`${pointer}/type`, `unsupported element type \`${String(type)}\` here`);
    return;
  }
  if (el.action_id !== undefined) {
    maxString(c, el.action_id, `${pointer}/action_id`, LIMITS.actionId);
    if (typeof el.action_id === "string") {
      if (actionIds.has(el.action_id)) {
        c.add(`${pointer}/action_id`, `action_id \`${el.action_id}\` is already used in this block`);
      }
      actionIds.add(el.action_id);
    }
  }
  if (el.placeholder !== undefined) {
    textObject(c, el.placeholder, `${pointer}/placeholder`, { max: LIMITS.placeholder, plainOnly: true });
  }
  switch (type) {
    case "button":
      textObject(c, el.text, `${pointer}/text`, { max: LIMITS.buttonText, plainOnly: true });
      maxString(c, el.value, `${pointer}/value`, LIMITS.buttonValue);
      maxString(c, el.url, `${pointer}/url`, LIMITS.url);
      if (el.style !== undefined && el.style !== "primary" && el.style !== "danger") {
        c.add(`${pointer}/style`, "must be one of primary, danger");
      }
      break;
    case "static_select":
    case "multi_static_select": {
      if (el.options !== undefined && el.option_groups !== undefined) {
        c.add(pointer, "must provide either options or option_groups, not both");
      }
      let values: unknown[] = [];
      if (el.option_groups !== undefined) {
        if (!Array.isArray(el.option_groups)) c.add(`${pointer}/option_groups`, "must be an array");
        else {
          if (el.option_groups.length > LIMITS.optionGroups) {
            c.add(`${pointer}/option_groups`, `no more than ${LIMITS.optionGroups} items allowed`);
          }
          el.option_groups.forEach((g, i) => {
            const gp = `${pointer}/option_groups/${i}`;
            if (!isObject(g)) {
              c.add(gp, "must be an option group object");
              return;
            }
            textObject(c, g.label, `${gp}/label`, { max: LIMITS.optionText, plainOnly: true });
            values = values.concat(options(c, g.options, `${gp}/options`, LIMITS.selectOptions, true));
          });
        }
      } else {
        values = options(c, el.options, `${pointer}/options`, LIMITS.selectOptions, true);
      }
      initialOptionIn(c, el, values, pointer);
      break;
    }
    case "radio_buttons":
      initialOptionIn(
        c,
        el,
        options(c, el.options, `${pointer}/options`, LIMITS.radioOptions, false),
        pointer,
      );
      break;
    case "checkboxes":
      initialOptionIn(
        c,
        el,
        options(c, el.options, `${pointer}/options`, LIMITS.checkboxOptions, false),
        pointer,
      );
      break;
    case "overflow":
      options(c, el.options, `${pointer}/options`, LIMITS.overflowOptions, true);
      break;
    case "plain_text_input": {
      const max = el.max_length;
      if (max !== undefined && (typeof max !== "number" || max < 1 || max > LIMITS.textInputMaxLength)) {
        c.add(`${pointer}/max_length`, `must be between 1 and ${LIMITS.textInputMaxLength}`);
      }
      const limit =
        typeof max === "number" ? Math.min(max, LIMITS.textInputMaxLength) : LIMITS.textInputMaxLength;
      maxString(c, el.initial_value, `${pointer}/initial_value`, limit);
      break;
    }
    case "number_input":
      if (typeof el.is_decimal_allowed !== "boolean") {
        c.add(`${pointer}/is_decimal_allowed`, "missing required field");
      }
      break;
    case "datepicker":
      if (el.initial_date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(String(el.initial_date))) {
        c.add(`${pointer}/initial_date`, "must be a date in the format YYYY-MM-DD");
      }
      break;
    default:
      break;
  }
}

function block(c: Collector, b: unknown, pointer: string, blockIds: Set<string>): { isInput: boolean } {
  if (!isObject(b)) {
    c.add(pointer, "must be a block object");
    return { isInput: false };
  }
  if (b.block_id !== undefined) {
    maxString(c, b.block_id, `${pointer}/block_id`, LIMITS.blockId);
    if (typeof b.block_id === "string") {
      if (blockIds.has(b.block_id)) c.add(`${pointer}/block_id`, `duplicate block_id \`${b.block_id}\``);
      blockIds.add(b.block_id);
    }
  }
  const actionIds = new Set<string>();
  switch (b.type) {
    case "section": {
      if (b.text === undefined && b.fields === undefined) {
        c.add(pointer, "must provide either text or fields");
      }
      if (b.text !== undefined) textObject(c, b.text, `${pointer}/text`, { max: LIMITS.sectionText });
      if (b.fields !== undefined) {
        if (!Array.isArray(b.fields)) c.add(`${pointer}/fields`, "must be an array");
        else {
          if (b.fields.length > LIMITS.sectionFields) {
            c.add(`${pointer}/fields`, `no more than ${LIMITS.sectionFields} items allowed`);
          }
          for (const [i, f] of b.fields.entries()) {
            textObject(c, f, `${pointer}/fields/${i}`, { max: LIMITS.sectionFieldText });
          }
        }
      }
      if (b.accessory !== undefined) {
        const isImage = isObject(b.accessory) && b.accessory.type === "image";
        if (!isImage) element(c, b.accessory, `${pointer}/accessory`, ACTION_ELEMENTS, actionIds);
      }
      return { isInput: false };
    }
    case "header":
      textObject(c, b.text, `${pointer}/text`, { max: LIMITS.headerText, plainOnly: true });
      return { isInput: false };
    case "divider":
      return { isInput: false };
    case "context":
      if (!Array.isArray(b.elements)) c.add(`${pointer}/elements`, "must be an array");
      else {
        if (b.elements.length < 1) c.add(`${pointer}/elements`, "must provide at least 1 items");
        if (b.elements.length > LIMITS.contextElements) {
          c.add(`${pointer}/elements`, `no more than ${LIMITS.contextElements} items allowed`);
        }
        b.elements.forEach((e, i) => {
          if (isObject(e) && e.type === "image") return;
          textObject(c, e, `${pointer}/elements/${i}`, { max: LIMITS.sectionText });
        });
      }
      return { isInput: false };
    case "actions":
      if (!Array.isArray(b.elements)) c.add(`${pointer}/elements`, "must be an array");
      else {
        if (b.elements.length < 1) c.add(`${pointer}/elements`, "must provide at least 1 items");
        if (b.elements.length > LIMITS.actionsElements) {
          c.add(`${pointer}/elements`, `no more than ${LIMITS.actionsElements} items allowed`);
        }
        for (const [i, e] of b.elements.entries()) {
          element(c, e, `${pointer}/elements/${i}`, ACTION_ELEMENTS, actionIds);
        }
      }
      return { isInput: false };
    case "input":
      textObject(c, b.label, `${pointer}/label`, { max: LIMITS.inputLabel, plainOnly: true });
      if (b.hint !== undefined)
        textObject(c, b.hint, `${pointer}/hint`, { max: LIMITS.inputHint, plainOnly: true });
      if (b.element === undefined) c.add(`${pointer}/element`, "missing required field");
      else element(c, b.element, `${pointer}/element`, INPUT_ELEMENTS, actionIds);
      return { isInput: true };
    case "image":
      maxString(c, b.image_url, `${pointer}/image_url`, LIMITS.url, b.slack_file === undefined);
      maxString(c, b.alt_text, `${pointer}/alt_text`, LIMITS.imageAltText, true);
      return { isInput: false };
    case "rich_text":
    case "markdown":
    case "file":
    case "video":
    case "table":
      return { isInput: false };
    default:
      c.add(`${pointer}/type`, `unsupported block type \`${String(b.type)}\``);
      return { isInput: false };
  }
}

/** Validates a `blocks` array for a surface; `base` is the JSON pointer of the array (`/blocks`). */
export function validateBlocks(blocks: unknown, surface: Surface, base: string): BlockProblem[] {
  const c = new Collector();
  if (!Array.isArray(blocks)) {
    c.add(base, "must be an array");
    return c.problems;
  }
  const max = surface === "message" ? LIMITS.messageBlocks : LIMITS.viewBlocks;
  if (blocks.length > max) c.add(base, `no more than ${max} items allowed`);
  const ids = new Set<string>();
  for (const [i, b] of blocks.entries()) block(c, b, `${base}/${i}`, ids);
  return c.problems;
}

/** Validates a whole view object as `views.open/update/push/publish` do. */
export function validateView(view: unknown): BlockProblem[] {
  const c = new Collector();
  if (!isObject(view)) {
    c.add("/view", "must be a view object");
    return c.problems;
  }
  const type = view.type;
  if (type !== "modal" && type !== "home") {
    c.add("/view/type", "must be one of modal, home");
    return c.problems;
  }
  if (type === "modal") {
    textObject(c, view.title, "/view/title", { max: LIMITS.modalTitle, plainOnly: true });
    if (view.submit !== undefined) {
      textObject(c, view.submit, "/view/submit", { max: LIMITS.modalButton, plainOnly: true });
    }
    if (view.close !== undefined) {
      textObject(c, view.close, "/view/close", { max: LIMITS.modalButton, plainOnly: true });
    }
  }
  maxString(c, view.private_metadata, "/view/private_metadata", LIMITS.privateMetadata);
  maxString(c, view.callback_id, "/view/callback_id", LIMITS.callbackId);
  maxString(c, view.external_id, "/view/external_id", LIMITS.externalId);
  const problems = [...c.problems, ...validateBlocks(view.blocks, type, "/view/blocks")];
  const hasInput =
    Array.isArray(view.blocks) && view.blocks.some((b) => isObject(b) && (b as Json).type === "input");
  if (type === "modal" && hasInput && view.submit === undefined) {
    problems.push({ pointer: "/view/submit", message: "submit is required when an input block is present" });
  }
  return problems;
}

/** Slack's wire format for these problems: `[ERROR] <message> [json-pointer:/view/blocks/3/text/text]`. */
export function formatProblems(problems: BlockProblem[]): string[] {
  return problems.map((p) => `[ERROR] ${p.message} [json-pointer:${p.pointer}]`);
}

/** The block ids of a view's input blocks: the only keys `response_action: errors` may use. */
export function inputBlockIds(blocks: unknown): Set<string> {
  const ids = new Set<string>();
  if (!Array.isArray(blocks)) return ids;
  for (const b of blocks) {
    if (isObject(b) && b.type === "input" && typeof b.block_id === "string") ids.add(b.block_id);
  }
  return ids;
}
