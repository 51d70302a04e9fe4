/** An amount for people ("€20,000.00"): exact (Intl formats a decimal string without a binary float). */
export function moneyText(amount: string, currency: string): string {
  const format = new Intl.NumberFormat("en", { style: "currency", currency });
  return format.format(amount as unknown as number);
}

/** Exact comparison of two non-negative decimal strings ("1999.95" > "1999.9"): no binary float involved. */
export function isMoreThan(a: string, b: string): boolean {
  const [aw = "0", af = ""] = a.split(".");
  const [bw = "0", bf = ""] = b.split(".");
  const scale = Math.max(af.length, bf.length);
  return BigInt(aw + af.padEnd(scale, "0")) > BigInt(bw + bf.padEnd(scale, "0"));
}
