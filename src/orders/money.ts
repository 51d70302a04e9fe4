/**
 * Exact decimal amounts for prices, line totals, order totals and budgets. An amount is a whole number of units
 * at a decimal scale (`12.50` is 1250 at scale 2), held in a BigInt: no binary floating point ever touches an
 * amount, so a thousand lines of 0.10 add up to exactly 100.00, and a total stays exact at any size.
 *
 * Rounding: adding, subtracting and multiplying by a whole quantity are exact and never round. The only rounding
 * is `round`/`toFixed` to fewer decimals, half away from zero (2.345 → 2.35, -2.345 → -2.35), the rule
 * Intl.NumberFormat applies too; prices never need it, because a price may not have more decimals than its
 * currency (docs/configuration.md, `price`).
 */

export class DecimalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DecimalError";
  }
}

/** A plain decimal, optionally with an exponent as JavaScript writes large and small numbers (`1e+21`). */
const DECIMAL = /^([+-])?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** Far beyond any price or budget: refuses absurd input (a 10^1000000 exponent) before it costs memory. */
const MAX_DIGITS = 60;

export class Decimal {
  /** The value is `units / 10^scale`; `scale` is never negative. */
  private constructor(
    readonly units: bigint,
    readonly scale: number,
  ) {}

  static readonly ZERO = new Decimal(0n, 0);

  static of(units: bigint, scale = 0): Decimal {
    if (!Number.isInteger(scale) || scale < 0) throw new DecimalError(`invalid scale ${scale}`);
    return new Decimal(units, scale);
  }

  /** A whole number (a quantity, a budget in whole units). */
  static fromInteger(value: number | bigint): Decimal {
    if (typeof value === "number" && !Number.isSafeInteger(value)) {
      throw new DecimalError(`${value} is not a whole number`);
    }
    return new Decimal(BigInt(value), 0);
  }

  /**
   * `"12.50"`, `"-3"`, `"1e+21"`, or a JavaScript number (as YAML reads `12.50`), read through its shortest
   * decimal form, which is the literal that was written as long as it has at most 15 significant digits.
   * Throws a DecimalError for anything else ("12,50", "", NaN, Infinity).
   */
  static parse(input: string | number): Decimal {
    if (typeof input === "number" && !Number.isFinite(input)) {
      throw new DecimalError(`${input} is not a decimal number`);
    }
    const text = String(input).trim();
    const match = DECIMAL.exec(text);
    if (!match) throw new DecimalError(`"${text}" is not a decimal number`);
    const [, sign, whole = "", fraction = "", exponentText] = match;
    const exponent = exponentText === undefined ? 0 : Number(exponentText);
    if (whole.length + fraction.length > MAX_DIGITS || Math.abs(exponent) > MAX_DIGITS) {
      throw new DecimalError(`"${text.slice(0, 40)}" has too many digits`);
    }
    let units = BigInt(whole + fraction);
    let scale = fraction.length - exponent;
    if (scale < 0) {
      units *= 10n ** BigInt(-scale);
      scale = 0;
    }
    return new Decimal(sign === "-" ? -units : units, scale).normalized();
  }

  /** `parse`, or null when the input is not a decimal number. */
  static tryParse(input: string | number): Decimal | null {
    try {
      return Decimal.parse(input);
    } catch (error) {
      if (error instanceof DecimalError) return null;
      throw error;
    }
  }

  /** The sum of `values` (0 for none). */
  static sum(values: Iterable<Decimal>): Decimal {
    let total = Decimal.ZERO;
    for (const value of values) total = total.plus(value);
    return total;
  }

  /** The same value with the fewest decimals that keep it exact (`12.50` → `12.5`). */
  normalized(): Decimal {
    let { units, scale } = this;
    while (scale > 0 && units % 10n === 0n) {
      units /= 10n;
      scale -= 1;
    }
    return units === this.units ? this : new Decimal(units, scale);
  }

  /** How many decimals the value needs to be exact (`12.50` → 1). */
  get decimals(): number {
    return this.normalized().scale;
  }

  private atScale(scale: number): bigint {
    return this.units * 10n ** BigInt(scale - this.scale);
  }

  plus(other: Decimal): Decimal {
    const scale = Math.max(this.scale, other.scale);
    return new Decimal(this.atScale(scale) + other.atScale(scale), scale);
  }

  minus(other: Decimal): Decimal {
    return this.plus(other.negated());
  }

  negated(): Decimal {
    return new Decimal(-this.units, this.scale);
  }

  /** Multiplied by a whole number (a quantity): exact, never rounded. */
  times(factor: number | bigint): Decimal {
    if (typeof factor === "number" && !Number.isSafeInteger(factor)) {
      throw new DecimalError(`can only multiply by a whole number, not ${factor}`);
    }
    return new Decimal(this.units * BigInt(factor), this.scale);
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  compare(other: Decimal): -1 | 0 | 1 {
    const scale = Math.max(this.scale, other.scale);
    const a = this.atScale(scale);
    const b = other.atScale(scale);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  equals(other: Decimal): boolean {
    return this.compare(other) === 0;
  }

  isZero(): boolean {
    return this.units === 0n;
  }

  isNegative(): boolean {
    return this.units < 0n;
  }

  /** Rounded to `scale` decimals, half away from zero; exact (unchanged) when it has no more decimals than that. */
  round(scale: number): Decimal {
    if (!Number.isInteger(scale) || scale < 0) throw new DecimalError(`invalid scale ${scale}`);
    if (scale >= this.scale) return new Decimal(this.atScale(scale), scale);
    const divisor = 10n ** BigInt(this.scale - scale);
    const magnitude = this.units < 0n ? -this.units : this.units;
    let quotient = magnitude / divisor;
    if ((magnitude % divisor) * 2n >= divisor) quotient += 1n;
    return new Decimal(this.units < 0n ? -quotient : quotient, scale);
  }

  /** Exactly `scale` decimals (rounded half away from zero when it had more): `12.5` → `"12.50"`. */
  toFixed(scale: number): string {
    const rounded = this.round(scale);
    const negative = rounded.units < 0n;
    const digits = (negative ? -rounded.units : rounded.units).toString().padStart(scale + 1, "0");
    const whole = digits.slice(0, digits.length - scale);
    const fraction = digits.slice(digits.length - scale);
    // No "-0.00": a value that rounds to zero is written as zero.
    const sign = negative && rounded.units !== 0n ? "-" : "";
    return `${sign}${whole}${scale > 0 ? `.${fraction}` : ""}`;
  }

  /** The shortest exact decimal form: `"12.5"`, `"-3"`, `"0"`. */
  toString(): string {
    const n = this.normalized();
    return n.toFixed(n.scale);
  }

  toJSON(): string {
    return this.toString();
  }
}
