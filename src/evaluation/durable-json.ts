/**
 * Durable state and step inputs are saved as JSON. `jsonCopy` checks a value strictly (what
 * `JSON.stringify` would silently change — a Date, a Map, a class instance, NaN, a function — is
 * rejected with its path) and returns the copy a restart would read back.
 */

/** The JSON copy of `value`, or a message naming the first part that is not JSON (`state.results[1].at is a Date`). */
export function jsonCopy(value: unknown, name: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const problem = findProblem(value, name, new Set());
  if (problem !== undefined) return { ok: false, problem };
  return { ok: true, value: value === undefined ? undefined : JSON.parse(JSON.stringify(value)) };
}

function findProblem(value: unknown, path: string, seen: Set<object>): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} is ${String(value)}`;
  if (value === undefined) return undefined;
  if (typeof value !== 'object') return `${path} is a ${typeof value}`;
  if (seen.has(value)) return `${path} refers back to itself (a cycle)`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (value[i] === undefined) return `${path}[${i}] is undefined`;
        const problem = findProblem(value[i], `${path}[${i}]`, seen);
        if (problem) return problem;
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null)
      return `${path} is ${describeInstance(value)}, not a plain object`;
    for (const [key, item] of Object.entries(value)) {
      const problem = findProblem(
        item,
        /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`,
        seen,
      );
      if (problem) return problem;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}

function describeInstance(value: object): string {
  const name = value.constructor?.name;
  return name ? `a ${name}` : 'an object with a custom prototype';
}
