/**
 * A click that changes state is decided before Slack gets its ack, so that an acked click is never lost to a crash;
 * Slack allows 3 s for the ack. This bounds the decision well inside that, and keeps the answer truthful either way:
 * the decision's transaction claims the deadline just before it commits (`commit()`), and the timer claims it when
 * it fires. Whichever claims first wins: a transaction that finds the time up throws and rolls back, so "not
 * recorded, click again" is true when it is said; a timer that finds the commit claimed waits for it (a commit,
 * not a lock wait or a Slack lookup, so well within Slack's margin).
 */

/** Thrown by `commit()` once the time is up: the transaction rolls back and the click changes nothing. */
export class ClickDeadlineError extends Error {
  readonly code = "click_deadline_passed";
  override readonly cause: undefined = undefined;
  constructor(ms: number) {
    super(
      `the click could not be decided within ${ms} ms; its transaction was rolled back so that nothing changed: ` +
        "the user was told to click again",
    );
    this.name = "ClickDeadlineError";
  }
}

export interface ClickDeadline {
  /**
   * Called inside the decision's transaction, after its last write and just before it returns (and commits).
   * Throws `ClickDeadlineError` when the time is up; otherwise the decision is past the point of no return.
   */
  commit(): void;
}

/** No bound (the command line, jobs): `commit()` never throws. */
export const NO_DEADLINE: ClickDeadline = { commit() {} };

export type Bounded<T> = { decided: true; value: T } | { decided: false };

/**
 * Runs `work` with a deadline of `ms`: `{ decided: true, value }` when it finished (its error is thrown as it was),
 * `{ decided: false }` when the time ran out first: nothing was committed then, nor will be.
 */
export function decideWithin<T>(
  ms: number,
  work: (deadline: ClickDeadline) => Promise<T>,
  onLateError?: (error: unknown) => void,
): Promise<Bounded<T>> {
  let state: "open" | "committing" | "timed_out" = "open";
  const deadline: ClickDeadline = {
    commit() {
      if (state === "timed_out") throw new ClickDeadlineError(ms);
      state = "committing";
    },
  };
  return new Promise<Bounded<T>>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (state !== "open") return;
      state = "timed_out";
      resolve({ decided: false });
    }, ms);
    work(deadline).then(
      (value) => {
        clearTimeout(timer);
        if (state !== "timed_out") resolve({ decided: true, value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (state !== "timed_out") reject(error);
        else if (!(error instanceof ClickDeadlineError)) onLateError?.(error);
      },
    );
  });
}
