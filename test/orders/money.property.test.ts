/**
 * Property tests for the money arithmetic and formatting: exact sums of many lines, large quantities, rounding half
 * away from zero, and parse/format round trips, against BigInt arithmetic on minor units as the reference.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { amountString, formatMoney, minorUnits } from "../../src/orders/currency.ts";
import { Decimal } from "../../src/orders/money.ts";

/** A price in minor units (cents) up to a million, and its decimal text with exactly `scale` decimals. */
const cents = fc.bigInt({ min: 0n, max: 100_000_000n });
const toText = (units: bigint, scale: number) => Decimal.of(units, scale).toFixed(scale);
const quantity = fc.integer({ min: 1, max: 999_999_999 });
const currency = fc.constantFrom("EUR", "USD", "JPY", "BHD", "GBP", "CHF", "KWD", "CLF");

describe("money arithmetic", () => {
  it("a sum of many lines is exact: the sum of unit price × quantity in minor units", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(cents, quantity), { maxLength: 200 }), (lines) => {
        const total = Decimal.sum(lines.map(([c, q]) => Decimal.parse(toText(c, 2)).times(q)));
        const expected = lines.reduce((sum, [c, q]) => sum + c * BigInt(q), 0n);
        expect(total.toFixed(2)).toBe(toText(expected, 2));
      }),
    );
  });

  it("ten thousand lines of 0.10 make exactly 1000.00, where binary floating point would not", () => {
    const lines = Array.from({ length: 10_000 }, () => Decimal.parse(0.1));
    expect(Decimal.sum(lines).toFixed(2)).toBe("1000.00");
    expect(Array.from({ length: 10_000 }, () => 0.1).reduce((a, b) => a + b, 0)).not.toBe(1000);
  });

  it("large quantities of large prices stay exact beyond 2^53", () => {
    fc.assert(
      fc.property(cents, quantity, quantity, (c, q1, q2) => {
        const line = Decimal.parse(toText(c, 2)).times(q1).times(q2);
        expect(line.toFixed(2)).toBe(toText(c * BigInt(q1) * BigInt(q2), 2));
      }),
    );
  });

  it("addition is commutative and associative, and order does not change a total", () => {
    const amount = fc.tuple(
      fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
      fc.integer({ min: 0, max: 6 }),
    );
    fc.assert(
      fc.property(fc.array(amount, { minLength: 1, maxLength: 50 }), (values) => {
        const decimals = values.map(([u, s]) => Decimal.of(u, s));
        const forward = Decimal.sum(decimals);
        const backward = Decimal.sum([...decimals].reverse());
        expect(forward.equals(backward)).toBe(true);
        expect(forward.minus(backward).isZero()).toBe(true);
      }),
    );
  });

  it("compare agrees with BigInt comparison at a common scale", () => {
    fc.assert(
      fc.property(
        fc.bigInt(),
        fc.integer({ min: 0, max: 8 }),
        fc.bigInt(),
        fc.integer({ min: 0, max: 8 }),
        (a, sa, b, sb) => {
          const scale = Math.max(sa, sb);
          const x = a * 10n ** BigInt(scale - sa);
          const y = b * 10n ** BigInt(scale - sb);
          expect(Decimal.of(a, sa).compare(Decimal.of(b, sb))).toBe(x < y ? -1 : x > y ? 1 : 0);
        },
      ),
    );
  });

  it("rounds half away from zero, and the error is at most half a unit of the last decimal", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 4 }),
        (units, scale, to) => {
          fc.pre(to < scale);
          const value = Decimal.of(units, scale);
          const rounded = value.round(to);
          const step = 10n ** BigInt(scale - to);
          const diff = rounded.units * step - units;
          const magnitude = diff < 0n ? -diff : diff;
          expect(magnitude * 2n <= step).toBe(true);
          // A tie goes away from zero: the rounded value is the larger in magnitude.
          const abs = (n: bigint) => (n < 0n ? -n : n);
          if (magnitude * 2n === step) expect(abs(rounded.units * step) > abs(units)).toBe(true);
        },
      ),
    );
    expect(Decimal.parse("2.345").toFixed(2)).toBe("2.35");
    expect(Decimal.parse("-2.345").toFixed(2)).toBe("-2.35");
    expect(Decimal.parse("2.344").toFixed(2)).toBe("2.34");
    expect(Decimal.parse("-0.004").toFixed(2)).toBe("0.00");
  });
});

describe("parsing and formatting", () => {
  it("parse and toString round-trip any decimal text, and toFixed keeps exactly the digits given", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
        fc.integer({ min: 0, max: 10 }),
        (units, scale) => {
          const text = toText(units, scale);
          const parsed = Decimal.parse(text);
          expect(parsed.toFixed(scale)).toBe(text);
          expect(Decimal.parse(parsed.toString()).equals(parsed)).toBe(true);
        },
      ),
    );
  });

  it("a JavaScript number of at most 15 significant digits is read as the decimal it was written as", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }),
        fc.integer({ min: 0, max: 4 }),
        (units, scale) => {
          const text = toText(units, scale);
          expect(Decimal.parse(Number(text)).equals(Decimal.parse(text))).toBe(true);
        },
      ),
    );
  });

  it("refuses what is not a decimal number", () => {
    for (const bad of ["", "12,50", "1.2.3", "€12", "abc", "1e", " . ", "0x10"]) {
      expect(Decimal.tryParse(bad), bad).toBeNull();
    }
    expect(Decimal.tryParse(Number.NaN)).toBeNull();
    expect(Decimal.tryParse(Number.POSITIVE_INFINITY)).toBeNull();
    expect(Decimal.parse(1e21).toString()).toBe("1000000000000000000000");
  });

  it("formats with the currency's own decimals, and the digits shown are the exact amount's", () => {
    fc.assert(
      fc.property(currency, fc.bigInt({ min: 0n, max: 10n ** 25n }), (code, units) => {
        const decimals = minorUnits(code);
        const exact = toText(units, decimals);
        expect(amountString(exact, code)).toBe(exact);
        const written = formatMoney(exact, code, "en");
        // Without the symbol and the grouping, en writes the exact digits.
        const digits = written.replace(/[^0-9.]/g, "").replace(/^\./, "");
        expect(digits).toBe(exact);
      }),
    );
  });

  it("formats for the locale", () => {
    expect(formatMoney("1234.5", "EUR", "en")).toBe("€1,234.50");
    expect(formatMoney("1234.5", "EUR", "de-DE")).toBe("1.234,50\u00a0€");
    expect(formatMoney("1234", "JPY", "en")).toBe("¥1,234");
    expect(formatMoney("12345678901234567890.25", "USD", "en")).toBe("$12,345,678,901,234,567,890.25");
  });
});
