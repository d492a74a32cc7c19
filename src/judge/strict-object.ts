/**
 * A zod object that rejects unknown keys with a message naming the key, the closest known key and
 * the keys that are allowed: a misspelt `max_turn` must not be silently ignored.
 */
import { z } from 'zod';

export function strictObject<Shape extends z.ZodRawShape>(shape: Shape, what = 'a mapping') {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') {
        const keys = (issue as { keys?: string[] }).keys ?? [];
        return keys.map((key) => unknownKeyMessage(key, known)).join('; ');
      }
      if (issue.code === 'invalid_type') return `expected ${what}, got ${describeValue(issue.input)}`;
      return undefined;
    },
  });
}

export function unknownKeyMessage(key: string, known: string[]): string {
  const suggestion = closest(key, known);
  const hint = suggestion ? `did you mean "${suggestion}"?` : `known keys: ${known.join(', ')}`;
  return `unknown key "${key}" (${hint})`;
}

/** A short description of a YAML value for error messages: `a string ("x")`, `a list`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string')
    return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  return `${typeof value === 'number' ? 'a number' : `a ${typeof value}`} (${String(value)})`;
}

function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
