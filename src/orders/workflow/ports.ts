/** What the workflow step needs from Slack, as an interface: orders/ knows nothing of Bolt or HTTP. */

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

export interface WorkflowFunctions {
  /** `functions.completeSuccess`. Throws `FunctionCompletionError` when Slack could not be told (retry later). */
  completeSuccess(functionExecutionId: string, outputs: PlaceOrderOutputs): Promise<CompletionResult>;
  /** `functions.completeError`; Slack shows `message` to the person who runs the workflow. */
  completeError(functionExecutionId: string, message: string): Promise<CompletionResult>;
  /** `chat.getPermalink`: a link to the order's message, for the `order_message_link` output. */
  permalink(channelId: string, messageTs: string): Promise<string>;
}
