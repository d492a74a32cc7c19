/**
 * A reviewer's verdict, as the review API takes it and as the `human-review` evaluator receives it
 * with the `review` signal: `passed` (a boolean), `explanation` (why, not empty), `reviewer` (who),
 * and optionally `score` (0 to 1) and `label`. One reader for both, so what the API accepts is
 * exactly what the evaluator records; a problem names the field at fault.
 */

export interface HumanVerdict {
  passed: boolean;
  explanation: string;
  reviewer: string;
  score?: number;
  label?: string;
}

/** Longest explanation and label kept (a verdict, not a document). */
export const MAX_EXPLANATION_CHARS = 10_000;
export const MAX_LABEL_CHARS = 200;
export const MAX_REVIEWER_CHARS = 200;
const FIELDS = ['passed', 'score', 'label', 'explanation', 'reviewer'];

export type HumanVerdictReading = { ok: true; verdict: HumanVerdict } | { ok: false; field: string; message: string };

export function readHumanVerdict(body: unknown): HumanVerdictReading {
  const fail = (field: string, message: string): HumanVerdictReading => ({ ok: false, field, message });
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return fail('body', 'the body must be a JSON object { passed, explanation, reviewer, score?, label? }');
  const value = body as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    if (!FIELDS.includes(key)) return fail(key, `${key} is not a field of a verdict (fields: ${FIELDS.join(', ')})`);
  }
  if (typeof value.passed !== 'boolean') return fail('passed', 'passed must be true or false');
  const explanation = typeof value.explanation === 'string' ? value.explanation.trim() : undefined;
  if (!explanation) return fail('explanation', 'explanation must be a non-empty string (why the verdict)');
  if (explanation.length > MAX_EXPLANATION_CHARS)
    return fail('explanation', `explanation must be at most ${MAX_EXPLANATION_CHARS} characters`);
  const reviewer = typeof value.reviewer === 'string' ? value.reviewer.trim() : undefined;
  if (!reviewer || reviewer.length > MAX_REVIEWER_CHARS)
    return fail('reviewer', `reviewer must be a non-empty string of at most ${MAX_REVIEWER_CHARS} characters`);
  const verdict: HumanVerdict = { passed: value.passed, explanation, reviewer };
  if (value.score !== undefined && value.score !== null) {
    if (typeof value.score !== 'number' || !Number.isFinite(value.score) || value.score < 0 || value.score > 1)
      return fail('score', 'score must be a number from 0 to 1');
    verdict.score = value.score;
  }
  if (value.label !== undefined && value.label !== null && value.label !== '') {
    if (typeof value.label !== 'string' || value.label.trim() === '' || value.label.length > MAX_LABEL_CHARS)
      return fail('label', `label must be a non-empty string of at most ${MAX_LABEL_CHARS} characters`);
    verdict.label = value.label.trim();
  }
  return { ok: true, verdict };
}
