/** The name a typo most likely meant, for "did you mean …?" in configuration errors. */

/** Edits (insert, delete, replace, swap two neighbours) between two names; stops counting past `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] ?? 0) + 1);
      }
      row.push(best);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length] ?? max + 1;
}

/** The documented variable an unknown name most likely meant (a few letters off), if one is close enough. */
export function nearestName(name: string, known: readonly string[]): string | null {
  let best: { name: string; d: number } | null = null;
  for (const candidate of known) {
    const d = distance(name, candidate, 2);
    if (d <= Math.min(2, Math.floor(candidate.length / 5)) && (!best || d < best.d))
      best = { name: candidate, d };
  }
  return best?.name ?? null;
}
