/**
 * Small helpers the built-in evaluators share: optional properties with defaults, choices, and
 * the text an evaluator checks (`target`).
 */
import { ConfigPropertyTypeError } from '../../src/evaluation/errors.ts';
import type { EvaluatorConfig } from '../../src/evaluation/evaluator-config.ts';
import type { InteractionRecord } from '../../src/model/records.ts';

export function optionalBoolean(config: EvaluatorConfig, key: string, fallback: boolean): boolean {
  return config.has(key) ? config.getBoolean(key) : fallback;
}

/** One of `choices`; the first is the default. */
export function choice<T extends string>(
  config: EvaluatorConfig,
  evaluatorId: string,
  key: string,
  choices: readonly [T, ...T[]],
): T {
  if (!config.has(key)) return choices[0];
  const value = config.getString(key);
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new ConfigPropertyTypeError(
    key,
    `evaluator ${evaluatorId}: config property "${key}" must be one of ${choices.join(', ')} (got ` +
      `${JSON.stringify(value)})`,
  );
}

export const TARGETS = ['final-response', 'transcript'] as const;
export type Target = (typeof TARGETS)[number];

/** The text checked: the final response, or every message of the transcript, one per line. */
export function targetText(record: InteractionRecord, target: Target): string {
  if (target === 'final-response') return record.finalResponseText ?? '';
  return record.transcript
    .flatMap((entry) => (entry.type === 'message' ? [`${entry.role}: ${entry.content}`] : []))
    .join('\n');
}

/** A short, one-line quotation of `text` for explanations. */
export function quote(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat);
}
