/**
 * Keys the supplier refused (401), remembered by fingerprint so they are not sent again on every order.
 *
 * During a rotation's grace period the secret's AWSCURRENT key may not be active at the supplier yet while
 * AWSPREVIOUS still works. Without this memory every order first sends the refused key (and sends it again after
 * re-reading the secret): two 401s per order until the cache expires, which a supplier that locks accounts after
 * failed logins would punish. With it, a refused key is skipped until the secret holds a different key (a new
 * fingerprint), which is tried at once.
 *
 * Only a fingerprint is kept (the first 16 hex digits of the key's SHA-256), never the key: the memory is safe to
 * log and cannot be turned back into the key. A refusal is also forgotten after `forgetAfterMs` (default 1 hour),
 * so a key the supplier activates late, without the secret changing, is picked up again at the cost of one 401.
 */
import { createHash } from "node:crypto";

export interface RefusedKeysOptions {
  now?: () => Date;
  /** How long a refusal is remembered when the secret does not change. Default 1 hour. */
  forgetAfterMs?: number;
  /** Re-read the secret at most this often while its current key is a refused one. Default 1 minute. */
  recheckAfterMs?: number;
}

/** The fingerprint of a key: enough to recognise it again, useless to anyone who reads it. */
export function keyFingerprint(value: string): string {
  return `sha256:${createHash("sha256").update(value).digest("hex").slice(0, 16)}`;
}

/** At most this many refused keys per secret (current and previous, and a few rotations' worth). */
const MAX_PER_SECRET = 8;

export class RefusedKeys {
  readonly #now: () => Date;
  readonly #forgetAfterMs: number;
  readonly #recheckAfterMs: number;
  /** secret id → fingerprint → when it was refused (ms). */
  readonly #refused = new Map<string, Map<string, number>>();
  /** secret id → when the secret was last re-read because its current key is a refused one (ms). */
  readonly #rechecked = new Map<string, number>();

  constructor(options: RefusedKeysOptions = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#forgetAfterMs = options.forgetAfterMs ?? 3_600_000;
    this.#recheckAfterMs = options.recheckAfterMs ?? 60_000;
  }

  /** Whether the supplier refused this key of this secret (and the refusal is not yet forgotten). */
  has(secretId: string, keyValue: string): boolean {
    const byKey = this.#refused.get(secretId);
    const fingerprint = keyFingerprint(keyValue);
    const at = byKey?.get(fingerprint);
    if (at === undefined) return false;
    if (this.#now().getTime() - at >= this.#forgetAfterMs) {
      byKey?.delete(fingerprint);
      return false;
    }
    return true;
  }

  remember(secretId: string, keyValue: string): void {
    let byKey = this.#refused.get(secretId);
    if (!byKey) {
      byKey = new Map();
      this.#refused.set(secretId, byKey);
    }
    const fingerprint = keyFingerprint(keyValue);
    // Re-inserted, so the oldest refusal is the first dropped.
    byKey.delete(fingerprint);
    byKey.set(fingerprint, this.#now().getTime());
    while (byKey.size > MAX_PER_SECRET) byKey.delete(byKey.keys().next().value as string);
  }

  /**
   * Whether to re-read the secret now because its current key is a refused one: at most once per
   * `recheckAfterMs`, so a fixed secret is noticed soon without asking Secrets Manager on every order.
   */
  shouldRecheck(secretId: string): boolean {
    const now = this.#now().getTime();
    const last = this.#rechecked.get(secretId);
    if (last !== undefined && now - last < this.#recheckAfterMs) return false;
    this.#rechecked.set(secretId, now);
    return true;
  }

  /** The fingerprints remembered for a secret (for logs and tests). */
  fingerprints(secretId: string): string[] {
    return [...(this.#refused.get(secretId)?.keys() ?? [])];
  }
}
