/**
 * Seeded randomness, so one `--seed` replays a run: carriers, tracking numbers, parcel splits, timings and fault
 * decisions. Each order draws from its own stream derived from the seed and the order's identity, so the plan of
 * an order does not depend on which other orders arrived first or concurrently.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** `count` lowercase hex digits. */
  hex(count: number): string;
  /** `count` decimal digits. */
  digits(count: number): string;
}

/** sfc32: small, fast, good statistical quality, and fully determined by 128 bits of state. */
function sfc32(a: number, b: number, c: number, d: number): () => number {
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/**
 * cyrb128: a fast 128-bit string hash to seed sfc32 (not cryptographic, and it need not be: it only spreads
 * seeds; a SHA-256 here was a measurable share of the create-order hot path).
 */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** A generator whose stream is fixed by its parts (e.g. the run's seed and an order's number). */
export function createRandom(...parts: ReadonlyArray<string | number>): Random {
  const [a, b, c, d] = cyrb128(parts.map(String).join("\u0000"));
  const next = sfc32(a, b, c, d);
  // Discard the first outputs: sfc32 mixes its seed over a few rounds.
  for (let i = 0; i < 12; i++) next();
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError("cannot pick from an empty list");
      return items[int(0, items.length - 1)] as T;
    },
    hex: (count) => {
      let out = "";
      for (let i = 0; i < count; i++) out += int(0, 15).toString(16);
      return out;
    },
    digits: (count) => {
      let out = "";
      for (let i = 0; i < count; i++) out += String(int(0, 9));
      return out;
    },
  };
}
