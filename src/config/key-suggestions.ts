/**
 * "Did you mean" for keys: the closest known key by edit distance, comparing keys without case,
 * `-` or `_` so `sampling_ratio` and `samplingRatio` both find `sampling-ratio`.
 */

export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, '');
}

/** The known key `key` most likely misspells, if any is close enough. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const normalized = normalizeKey(key);
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    if (candidate === key) return undefined;
    const target = normalizeKey(candidate);
    const distance = target === normalized ? 0 : editDistance(normalized, target);
    if (distance <= allowedDistance(target) && (!best || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}

/** ` (did you mean "x"?)`, or ` (allowed: a, b)` when nothing is close, or `` when there is nothing to offer. */
export function suggestionHint(key: string, known: readonly string[], label = 'allowed'): string {
  const closest = closestKey(key, known);
  if (closest !== undefined) return ` (did you mean ${JSON.stringify(closest)}?)`;
  return known.length > 0 ? ` (${label}: ${known.join(', ')})` : '';
}

/** Short keys tolerate one typo, longer ones more, so `agent` suggests `agents` but `control` no `control-id`. */
function allowedDistance(normalized: string): number {
  if (normalized.length <= 9) return 1;
  if (normalized.length <= 12) return 2;
  return 3;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: columns }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < columns; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(table[i - 1]![j]! + 1, table[i]![j - 1]! + 1, table[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, table[i - 2]![j - 2]! + 1);
      table[i]![j] = value;
    }
  }
  return table[a.length]![b.length]!;
}
