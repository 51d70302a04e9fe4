/** Errors of the order workflow, each with a readonly `code` to switch on and a message saying what to do. */

export type OrderErrorCode =
  | "ORDER_NOT_FOUND"
  | "ORDER_NOT_RESUBMITTABLE"
  | "INVALID_JOB_DATA"
  | "APPROVER_UNREACHABLE";

export abstract class OrderError extends Error {
  abstract readonly code: OrderErrorCode;
  override readonly cause: unknown;
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message);
    this.name = new.target.name;
    this.cause = options.cause;
  }
}

export class OrderNotFoundError extends OrderError {
  readonly code = "ORDER_NOT_FOUND";
  constructor(readonly orderId: string) {
    super(`Order ${orderId} does not exist (it may have been removed); place a new order with /order.`);
  }
}

/** "Fix and resubmit" on an order that was placed meanwhile, or resubmitted already. */
export class OrderNotResubmittableError extends OrderError {
  readonly code = "ORDER_NOT_RESUBMITTABLE";
  constructor(
    readonly orderId: string,
    readonly status: string,
  ) {
    super(
      `This order can no longer be resubmitted (it is ${status}). If you still need it, place a new order with /order.`,
    );
  }
}

/**
 * Slack will never deliver a DM to this approver (`account_inactive`, `user_not_found`, `user_disabled`,
 * `cannot_dm_bot`): retrying is pointless; the admins are told to fix the profile's approvers.
 */
export class ApproverUnreachableError extends OrderError {
  readonly code = "APPROVER_UNREACHABLE";
  constructor(
    readonly approver: string,
    readonly slackError: string,
    options: { cause?: unknown } = {},
  ) {
    super(
      `Slack cannot deliver a DM to approver ${approver} (${slackError}); remove them from the profile's approvers in order-desk.config.yml or reactivate their account.`,
      options,
    );
  }
}
