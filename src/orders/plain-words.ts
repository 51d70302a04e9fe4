/**
 * The supplier's rule messages, kept in its style in src/supplier/rules.ts ("'Shipping.StateName' is required for
 * addresses in US."), read like a machine wrote them once the path is dropped ("Is required for addresses in
 * US."). These are the ones that need more than that, in people's words, with the field named as the form names
 * it: "A state is required for US addresses."
 */

const REWRITES: ReadonlyArray<{ pattern: RegExp; say: (m: RegExpExecArray, label: string) => string }> = [
  {
    pattern: /^'[^']*' is required for addresses in ([A-Z]{2})\.$/,
    say: (m, label) => `${withArticle(label)} is required for ${m[1]} addresses.`,
  },
  { pattern: /^'[^']*' is required\.$/, say: (_, label) => `${label} is required.` },
  { pattern: /^'[^']*' must not be empty\.$/, say: (_, label) => `${label} must not be empty.` },
];

/** "State" → "A state"; "E-mail" → "An e-mail"; "Line 2 quantity" → "A line 2 quantity" is avoided: kept. */
function withArticle(label: string): string {
  if (/^Line \d/.test(label)) return label;
  const lower = label.charAt(0).toLowerCase() + label.slice(1);
  return `${/^[aeiou]/i.test(lower) ? "An" : "A"} ${lower}`;
}

/** The message in people's words for the field labelled `label`, or null when the plain form reads well. */
export function inPlainWords(message: string, label: string): string | null {
  for (const { pattern, say } of REWRITES) {
    const m = pattern.exec(message.trim());
    if (m) return say(m, label);
  }
  return null;
}
