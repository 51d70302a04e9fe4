/**
 * Field errors → `response_action: "errors"`: Slack shows an error only under a block that is in the view, so each
 * field's problem goes to the block that shows it, and one the view has no block for (a single profile, no manual
 * order number) goes to the ticket's.
 */
import { type FieldErrors, fieldLabel } from "../../orders/fields.ts";
import { FIELD_BLOCK, LINE_BLOCK } from "./ids.ts";
import { truncate } from "./text.ts";

/** Field errors → `response_action: "errors"` keyed by the blocks that show them. */
export function errorsForBlocks(
  errors: FieldErrors,
  lineKeys: readonly string[],
  opts: { hasProfileBlock: boolean; hasEdnBlock: boolean },
): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (blockId: string | undefined, message: string) => {
    if (!blockId) return;
    out[blockId] = truncate(out[blockId] ? `${out[blockId]} ${message}` : message, 2000);
  };
  for (const [field, messages] of Object.entries(errors)) {
    const text = messages.join(" ");
    const line = /^lines\.(\d+)\.(itemNumber|quantity|comment)$/.exec(field);
    if (line) {
      const key = lineKeys[Number(line[1])];
      if (key === undefined) continue;
      const kind = line[2] === "itemNumber" ? "item" : line[2] === "quantity" ? "quantity" : "comment";
      add(LINE_BLOCK[kind](key), text);
    } else if (field === "lines") {
      add(lineKeys[0] === undefined ? FIELD_BLOCK.ticket : LINE_BLOCK.item(lineKeys[0]), text);
    } else if (field === "profile") {
      add(opts.hasProfileBlock ? FIELD_BLOCK.profile : FIELD_BLOCK.ticket, text);
    } else if (field === "externalDocumentNumber" && !opts.hasEdnBlock) {
      add(FIELD_BLOCK.ticket, `${fieldLabel(field)}: ${text}`);
    } else {
      add(FIELD_BLOCK[field as keyof typeof FIELD_BLOCK], text);
    }
  }
  return out;
}
