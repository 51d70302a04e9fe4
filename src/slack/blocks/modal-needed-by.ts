/**
 * The order modal's **Needed by** date picker, and the "Use Express" checkbox when the late-delivery warning
 * offered it (or the agent ticked it). The warning itself shows under the date, where the date is changed.
 */
import type { types } from "@slack/bolt";
import type { Customer } from "../../config/catalog.ts";
import type { OrderDraft } from "../../orders/draft.ts";
import type { FieldErrors } from "../../orders/fields.ts";
import type { ModalMetadata } from "../metadata.ts";
import { ACTION, EXPRESS_BLOCK, FIELD_BLOCK } from "./ids.ts";
import { hint } from "./modal-inputs.ts";
import { plain } from "./text.ts";

type KnownBlock = types.KnownBlock;

export function neededByBlocks(
  customer: Customer,
  draft: OrderDraft,
  meta: ModalMetadata,
  errors: FieldErrors | undefined,
): KnownBlock[] {
  const initial = /^\d{4}-\d{2}-\d{2}$/.test(draft.neededBy ?? "") ? draft.neededBy : undefined;
  const blocks: KnownBlock[] = [
    {
      type: "input",
      block_id: FIELD_BLOCK.neededBy,
      optional: true,
      label: plain("Needed by"),
      element: {
        type: "datepicker",
        action_id: ACTION.value,
        ...(initial ? { initial_date: initial } : {}),
        placeholder: plain("When it must arrive", 150),
      },
      ...hint(errors, "neededBy", "The date it must be there by, such as a new hire's first day."),
    } as KnownBlock,
  ];
  const express = customer.config.expressOrderType;
  if (express && (meta.xo || draft.express)) {
    const option = {
      text: plain(`Use ${express.type} (${express.leadTimeDays} business days)`, 75),
      value: "express",
    };
    blocks.push({
      type: "input",
      block_id: EXPRESS_BLOCK,
      optional: true,
      label: plain("Faster delivery"),
      element: {
        type: "checkboxes",
        action_id: ACTION.value,
        options: [option],
        ...(draft.express ? { initial_options: [option] } : {}),
      },
    } as KnownBlock);
  }
  return blocks;
}
