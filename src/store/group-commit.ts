/**
 * Group commit: writes that arrive while earlier ones are being committed are gathered and committed together
 * in one transaction, so under load a burst of N requests costs a few round trips and one commit instead of N
 * transactions. At low load nothing waits: a write goes out at once when a commit slot is free.
 *
 * If a batch fails, each of its writes is tried again on its own, so one bad item (say, a value the database
 * refuses) fails alone and the others are not held back by it.
 */

export interface GroupCommitOptions {
  /** Batches committing at the same time (default 1; more only helps with a connection pool). */
  concurrency?: number;
  /** Largest batch (default 64). */
  maxBatch?: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<I, O> {
  private readonly queue: Pending<I, O>[] = [];
  private running = 0;
  private readonly concurrency: number;
  private readonly maxBatch: number;

  /** `commit` writes a batch and answers one result per item, in order. */
  constructor(
    private readonly commit: (items: readonly I[]) => Promise<O[]>,
    options: GroupCommitOptions = {},
  ) {
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.maxBatch = Math.max(1, options.maxBatch ?? 64);
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.running < this.concurrency) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running++;
    try {
      // One turn of the event loop first: requests already read from their sockets get to join. Without it an
      // in-process database (PGlite answers within microtasks) commits every write alone.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        await this.commitBatch(batch);
      }
    } finally {
      this.running--;
    }
  }

  private async commitBatch(batch: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.commit(batch.map((p) => p.item));
      for (const [i, p] of batch.entries()) p.resolve(results[i] as O);
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
    }
    for (const p of batch) {
      try {
        const [result] = await this.commit([p.item]);
        p.resolve(result as O);
      } catch (error) {
        p.reject(error);
      }
    }
  }
}
