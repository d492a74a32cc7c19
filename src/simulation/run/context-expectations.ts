/**
 * `expect_context`: deterministic assertions on the context after the run (τ-bench style final
 * state checks), scored as criteria with outcome `assertion` so they weigh in and gate the pass.
 */
import type { CriterionResult } from '../../judge/criteria-judge.ts';
import { canonicalJson } from '../runtime/completion-gate.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../judge/json-value.ts';
import type { ContextExpectation } from '../scenario/scenario.ts';

export function checkContextExpectations(
  expectations: readonly ContextExpectation[],
  context: JsonObject,
): CriterionResult[] {
  return expectations.map((expectation) => {
    const actual = valueAt(context, expectation.path);
    const where = expectation.path.join('.');
    const [passed, reasoning] = verdict(expectation, actual, where);
    return {
      name: expectation.name,
      description: describe(expectation, where),
      criterionType: 'assertion',
      weight: expectation.weight,
      passed,
      score: passed ? 1 : 0,
      reasoning,
      outcome: 'assertion',
    };
  });
}

function verdict(expectation: ContextExpectation, actual: JsonValue | undefined, where: string): [boolean, string] {
  const shown = actual === undefined ? 'nothing' : canonicalJson(actual);
  if (expectation.absent !== undefined) {
    const absent = actual === undefined || actual === null;
    if (expectation.absent)
      return [absent, absent ? `${where} is absent` : `${where} is ${shown}, expected it to be absent`];
    return [!absent, !absent ? `${where} is ${shown}` : `${where} is absent, expected a value`];
  }
  if (expectation.equals !== undefined) {
    const ok = actual !== undefined && canonicalJson(actual) === canonicalJson(expectation.equals);
    return [ok, ok ? `${where} is ${shown}` : `${where} is ${shown}, expected ${canonicalJson(expectation.equals)}`];
  }
  const ok = actual !== undefined && includes(actual, expectation.includes!);
  return [
    ok,
    ok
      ? `${where} includes ${canonicalJson(expectation.includes!)}`
      : `${where} is ${shown}, expected it to include ${canonicalJson(expectation.includes!)}`,
  ];
}

function describe(expectation: ContextExpectation, where: string): string {
  if (expectation.absent !== undefined)
    return expectation.absent ? `context ${where} is absent` : `context ${where} exists`;
  if (expectation.equals !== undefined) return `context ${where} equals ${canonicalJson(expectation.equals)}`;
  return `context ${where} includes ${canonicalJson(expectation.includes!)}`;
}

export function valueAt(root: JsonValue, path: readonly string[]): JsonValue | undefined {
  let value: JsonValue | undefined = root;
  for (const key of path) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
    else if (isJsonObject(value)) value = Object.hasOwn(value, key) ? value[key] : undefined;
    else return undefined;
  }
  return value;
}

/**
 * Objects: every expected key is included recursively; arrays: every expected element is found;
 * strings: substring; else equality.
 */
function includes(actual: JsonValue, expected: JsonValue): boolean {
  if (isJsonObject(expected)) {
    return (
      isJsonObject(actual) &&
      Object.entries(expected).every(([key, value]) => Object.hasOwn(actual, key) && includes(actual[key], value))
    );
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.every((item) => actual.some((candidate) => includes(candidate, item)));
  }
  if (typeof expected === 'string' && typeof actual === 'string') return actual.includes(expected);
  return canonicalJson(actual) === canonicalJson(expected);
}
