/**
 * The properties of the two LLM judges, checked before they run. `JUDGE_PROPERTIES` holds what
 * both take: a property added there (and read in llm-judge-support.ts) is known to both judges at
 * once; a property of one judge goes in its own schema below. Snake_case keys are the documented
 * ones; the kebab-case spellings are accepted too, but not both at once.
 */
import * as z from 'zod';
import { strictObject } from '../../src/config/strict-object.ts';
import { configValues } from '../../src/evaluation/config-values.ts';
import { criteriaSchema } from '../../src/judge/criterion-schema.ts';
import { MIN_MAX_INPUT_TOKENS } from '../../src/judge/input-budget.ts';
import { whenRead } from '../config/schema-kit.ts';

/** Properties every LLM judge takes. */
export const JUDGE_PROPERTIES = {
  /** The judge model (default `EVALON_MODEL`). */
  model: configValues.string().optional(),
  /** Replaces the judge's default instructions. */
  prompt_template: configValues.string().optional(),
  'prompt-template': configValues.string().optional(),
  /** The tokens one judge request may take, estimated; the transcript is shortened to fit. */
  max_input_tokens: configValues.int({ min: MIN_MAX_INPUT_TOKENS }).optional(),
  'max-input-tokens': configValues.int({ min: MIN_MAX_INPUT_TOKENS }).optional(),
};

/** Keys written in two spellings: only one may be set. */
const SPELLINGS: ReadonlyArray<readonly [string, string]> = [
  ['prompt_template', 'prompt-template'],
  ['pass_threshold', 'pass-threshold'],
  ['max_input_tokens', 'max-input-tokens'],
];

function oneSpelling(properties: Record<string, unknown>, context: z.RefinementCtx): void {
  for (const [key, alias] of SPELLINGS) {
    if (properties[key] !== undefined && properties[alias] !== undefined)
      context.addIssue({ code: 'custom', path: [alias], message: `is the same property as ${key}: set one of them` });
  }
}

const isText = (value: unknown) => typeof value === 'string' && value.trim() !== '';

export const llmJudgeProperties = strictObject({
  ...JUDGE_PROPERTIES,
  /** What a good interaction looks like. */
  rubric: configValues.string().optional(),
  pass_threshold: configValues.number({ min: 0, max: 1 }).optional(),
  'pass-threshold': configValues.number({ min: 0, max: 1 }).optional(),
}).superRefine(
  (properties, context) => {
    oneSpelling(properties, context);
    if (![properties.rubric, properties.prompt_template, properties['prompt-template']].some(isText))
      context.addIssue({
        code: 'custom',
        path: ['rubric'],
        message: 'is required, or prompt_template (set one on the evaluator entry or on the binding)',
      });
  },
  whenRead('rubric', 'prompt_template', 'prompt-template'),
);

/** `criteria` is required: a missing one says where it goes, as every missing property does. */
const requiredCriteria = z
  .unknown()
  .superRefine((value, context) => {
    // No message: the parse's error map words a missing property.
    if (value === undefined) context.addIssue({ code: 'invalid_type', expected: 'nonoptional', input: value });
  })
  .pipe(criteriaSchema)
  .refine((criteria) => criteria.length > 0, { message: 'must list at least one criterion' });

export const criteriaJudgeProperties = strictObject({
  ...JUDGE_PROPERTIES,
  /** Exactly a scenario's `eval_criteria`. */
  criteria: requiredCriteria,
}).superRefine(oneSpelling, whenRead('prompt_template', 'prompt-template'));
