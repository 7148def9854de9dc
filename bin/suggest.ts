/**
 * "Did you mean …?": the names closest to a mistyped one, for the CLI's refusal of an unknown option or command.
 * A suggestion that is no better than a guess helps less than none, so only a close name is offered: one at most
 * two edits away (a swap of two neighbouring letters counts as one, as in `prot` for `port`) that keeps more than
 * 40% of its letters, or else the one name the word begins.
 */

/** The candidates closest to `word` (ties all given, in their order), or none close enough. */
export function closest(word: string, candidates: readonly string[]): string[] {
  const typed = word.toLowerCase();
  let best = 2;
  let found: string[] = [];
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate.toLowerCase());
    const length = Math.max(typed.length, candidate.length);
    if ((length - distance) / length <= 0.4 || distance > best) continue;
    if (distance < best) found = [];
    best = distance;
    found.push(candidate);
  }
  if (found.length > 0) return found;
  // An abbreviation: `--max-stored` for `--max-stored-answers`, when no other name begins so.
  const begun = typed.length >= 3 ? candidates.filter((candidate) => candidate.toLowerCase().startsWith(typed)) : [];
  return begun.length === 1 ? begun : [];
}

/** "a", "a or b", "a, b or c". */
export function alternatives(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** Edits (insert, delete, replace, swap of neighbours) from `a` to `b`: the optimal string alignment distance. */
function editDistance(a: string, b: string): number {
  // rows[i][j]: the distance between a's first i letters and b's first j.
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]![j]!;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        distance = Math.min(distance, at(i - 2, j - 2) + 1);
      rows[i]![j] = distance;
    }
  }
  return at(a.length, b.length);
}
