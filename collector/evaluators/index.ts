/**
 * The built-in evaluators (spec §8), registered in every collector under these ids. Bind them in
 * `processors.evaluation.evaluators` like any other evaluator; their properties are documented in
 * docs/evaluators.md. (The LLM judges, `criteria-judge` and `llm-judge`, come with the judge work.)
 */
import type { EvaluatorDefinition } from '../../src/evaluation/evaluator.ts';
import { containsEvaluator } from './contains.ts';
import { jsonSchemaEvaluator } from './json-schema.ts';
import { regexEvaluator } from './regex.ts';
import { replyLengthEvaluator } from './reply-length.ts';
import { toolCallRequiredEvaluator } from './tool-call-required.ts';

export const BUILT_IN_EVALUATORS: readonly EvaluatorDefinition[] = [
  replyLengthEvaluator,
  toolCallRequiredEvaluator,
  jsonSchemaEvaluator,
  containsEvaluator,
  regexEvaluator,
];

export { containsEvaluator, jsonSchemaEvaluator, regexEvaluator, replyLengthEvaluator, toolCallRequiredEvaluator };
