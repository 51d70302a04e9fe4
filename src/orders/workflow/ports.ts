/** What the workflow step needs from Slack, as an interface: orders/ knows nothing of Bolt or HTTP. */
import type { OrderDraft } from "../draft.ts";
import type { FieldErrors } from "../fields.ts";

/** The step's inputs read into a draft at the boundary (slack/workflow-inputs.ts). */
export type WorkflowDraftResult =
  | {
      ok: true;
      draft: OrderDraft;
      channelId: string;
      recipientUserId: string | null;
      /** The `requested_by` input: the person asking, held to the profile's allowed users and approval rules. */
      requestedBy?: string | null;
    }
  /** `draft`: the inputs that could be read, so the caller can also report every other bad input at once. */
  | { ok: false; problems: string[]; draft: OrderDraft };

/** How the step names its inputs to the workflow author (manifest.yml's input ids and titles). */
export interface StepInputNames {
  /** The input that feeds a draft field (`email` → `email`, `lines.0.quantity` → `items`). */
  inputForField(field: string): string;
  /** Field errors as one message per input: `Recipient e-mail (email): Must be a valid e-mail address.` */
  describeErrors(errors: FieldErrors): string[];
}

/** The step's outputs (manifest.yml `functions.place_order.output_parameters`, all required). */
export interface PlaceOrderOutputs {
  correlation_id: string;
  external_document_number: string;
  order_message_link: string;
}

/**
 * `completed`: Slack took the outcome. `already_ended`: the execution had already ended (completed or failed
 * earlier, or Slack no longer knows it), so there is nothing left to tell it.
 */
export type CompletionResult = "completed" | "already_ended";

/** The step's Slack side: telling Slack the outcome, and naming its inputs in what it is told. */
export interface WorkflowFunctions extends StepInputNames {
  /** `functions.completeSuccess`. Throws `FunctionCompletionError` when Slack could not be told (retry later). */
  completeSuccess(functionExecutionId: string, outputs: PlaceOrderOutputs): Promise<CompletionResult>;
  /** `functions.completeError`; Slack shows `message` to the person who runs the workflow. */
  completeError(functionExecutionId: string, message: string): Promise<CompletionResult>;
  /** `chat.getPermalink`: a link to the order's message, for the `order_message_link` output. */
  permalink(channelId: string, messageTs: string): Promise<string>;
}
