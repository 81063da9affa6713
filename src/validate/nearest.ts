/**
 * The known name a mistyped one most likely meant: one or two edits away (a swap of neighbours counting as one), the
 * only name holding all its words, or the only name it begins. Undefined when nothing is that close.
 */
export function nearest(given: string, known: readonly string[]): string | undefined {
  const within = given.length <= 4 ? 1 : 2;
  const distances = known.map((name) => editDistance(given.toLowerCase(), name.toLowerCase()));
  const closest = Math.min(...distances);
  if (closest <= within) return known[distances.indexOf(closest)];
  // `provider-url` for `provider-base-url`: the only name holding every word given, in order.
  const words = given.toLowerCase().split('-');
  const holding = known.filter((name) => {
    let from = 0;
    const parts = name.toLowerCase().split('-');
    return words.every((word) => {
      const at = parts.indexOf(word, from);
      from = at + 1;
      return at !== -1;
    });
  });
  if (given.length >= 2 && holding.length === 1) return holding[0];
  const extended = known.filter((name) => given.length >= 2 && name.startsWith(given.toLowerCase()));
  return extended.length === 1 ? extended[0] : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, at(i - 2, j - 2) + 1);
      row[j] = d;
    }
  }
  return at(a.length, b.length);
}
