/**
 * Per-id cache with a TTL, one fetch in flight per id, and backoff after failures: while backing off, a transient
 * failure serves the last good value and a permanent one is rethrown, so Secrets Manager is not hammered either way.
 */

export interface BackoffOptions {
  /** Wait after the first failure. Default 1 s. */
  initialMs?: number;
  /** Ceiling of the doubling wait. Default 5 min. */
  maxMs?: number;
}

export interface CacheOptions {
  ttlMs: number;
  now: () => Date;
  backoff?: BackoffOptions;
  /** A forced refresh within this long of the last successful fetch reuses it (many 401s at once → one fetch). */
  minRefreshIntervalMs?: number;
  isTransient(error: unknown): boolean;
  /** Called when a transient failure is answered with the last good value. */
  onStale(id: string, error: unknown, info: { retryInMs: number; failures: number; ageMs: number }): void;
  /** Called for every failure that is thrown to the caller. */
  onFailure(id: string, error: unknown, info: { retryInMs: number; failures: number }): void;
}

interface Entry<T> {
  value: T | undefined;
  fetchedAt: number;
  failures: number;
  retryAt: number;
  lastError: unknown;
  inflight: Promise<T> | null;
}

export class RefreshingCache<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #options: CacheOptions;
  readonly #initialMs: number;
  readonly #maxMs: number;

  constructor(options: CacheOptions) {
    this.#options = options;
    this.#initialMs = options.backoff?.initialMs ?? 1_000;
    this.#maxMs = options.backoff?.maxMs ?? 300_000;
  }

  peek(id: string): T | undefined {
    return this.#entries.get(id)?.value;
  }

  /** Forgets the value so the next `get` fetches (an in-flight fetch still completes and is kept). */
  invalidate(id: string): void {
    const entry = this.#entries.get(id);
    if (entry && !entry.inflight) this.#entries.delete(id);
  }

  async get(id: string, load: () => Promise<T>): Promise<T> {
    const entry = this.#entry(id);
    const now = this.#options.now().getTime();
    if (entry.value !== undefined && now - entry.fetchedAt < this.#options.ttlMs) return entry.value;
    if (entry.inflight) return entry.inflight;
    if (entry.failures > 0 && now < entry.retryAt) {
      if (entry.value !== undefined && this.#options.isTransient(entry.lastError)) return entry.value;
      throw entry.lastError;
    }
    return this.#load(id, entry, load);
  }

  /** Fetches again regardless of TTL and backoff, unless a fetch is in flight or has just completed. */
  async refresh(id: string, load: () => Promise<T>): Promise<T> {
    const entry = this.#entry(id);
    if (entry.inflight) return entry.inflight;
    const now = this.#options.now().getTime();
    const minInterval = this.#options.minRefreshIntervalMs ?? 1_000;
    if (entry.value !== undefined && entry.failures === 0 && now - entry.fetchedAt < minInterval)
      return entry.value;
    return this.#load(id, entry, load);
  }

  #entry(id: string): Entry<T> {
    let entry = this.#entries.get(id);
    if (!entry) {
      entry = {
        value: undefined,
        fetchedAt: 0,
        failures: 0,
        retryAt: 0,
        lastError: undefined,
        inflight: null,
      };
      this.#entries.set(id, entry);
    }
    return entry;
  }

  #load(id: string, entry: Entry<T>, load: () => Promise<T>): Promise<T> {
    const flight = load().then(
      (value) => {
        entry.value = value;
        entry.fetchedAt = this.#options.now().getTime();
        entry.failures = 0;
        entry.retryAt = 0;
        entry.lastError = undefined;
        return value;
      },
      (error: unknown) => {
        const now = this.#options.now().getTime();
        entry.failures += 1;
        entry.lastError = error;
        const retryInMs = Math.min(this.#maxMs, this.#initialMs * 2 ** (entry.failures - 1));
        entry.retryAt = now + retryInMs;
        if (entry.value !== undefined && this.#options.isTransient(error)) {
          this.#options.onStale(id, error, {
            retryInMs,
            failures: entry.failures,
            ageMs: now - entry.fetchedAt,
          });
          return entry.value;
        }
        this.#options.onFailure(id, error, { retryInMs, failures: entry.failures });
        throw error;
      },
    );
    entry.inflight = flight;
    const clear = (): void => {
      if (entry.inflight === flight) entry.inflight = null;
    };
    flight.then(clear, clear);
    return flight;
  }
}
