/**
 * The built-in evaluators (spec §8), registered in every collector under these ids. Bind them in
 * `processors.evaluation.evaluators` like any other evaluator; their properties are documented in
 * docs/evaluators.md (the LLM judges `llm-judge` and `criteria-judge`: section "LLM judges").
 */
import type { EvaluatorDefinition } from '../../src/evaluation/evaluator.ts';
import { containsEvaluator } from './contains.ts';
import { criteriaJudgeEvaluator } from './criteria-judge.ts';
import { jsonSchemaEvaluator } from './json-schema.ts';
import { llmJudgeEvaluator } from './llm-judge.ts';
import { regexEvaluator } from './regex.ts';
import { replyLengthEvaluator } from './reply-length.ts';
import { toolCallRequiredEvaluator } from './tool-call-required.ts';

export const BUILT_IN_EVALUATORS: readonly EvaluatorDefinition[] = [
  replyLengthEvaluator,
  toolCallRequiredEvaluator,
  jsonSchemaEvaluator,
  containsEvaluator,
  regexEvaluator,
  llmJudgeEvaluator,
  criteriaJudgeEvaluator,
];

export { containsEvaluator, criteriaJudgeEvaluator, jsonSchemaEvaluator, llmJudgeEvaluator, regexEvaluator, replyLengthEvaluator, toolCallRequiredEvaluator };
