/**
 * The built-in evaluators, registered in every collector under these ids. Bind them in
 * `processors.evaluation.evaluators` like any other evaluator; their properties are documented in
 * docs/evaluators.md (the LLM judges `llm-judge` and `criteria-judge`: section "LLM judges").
 */
import type { EvaluatorDefinition } from '../../src/evaluation/evaluator.ts';
import { containsEvaluator } from './contains.ts';
import { createCriteriaJudgeEvaluator, criteriaJudgeEvaluator } from './criteria-judge.ts';
import { humanReviewEvaluator } from './human-review.ts';
import { jsonSchemaEvaluator } from './json-schema.ts';
import { createLlmJudgeEvaluator, llmJudgeEvaluator } from './llm-judge.ts';
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
  humanReviewEvaluator,
];

/** The environment a judge evaluator reads its model settings from (`ANTHROPIC_BASE_URL`, ...), by evaluator id. */
export type JudgeEnvironment = (evaluatorId: string) => Record<string, string | undefined>;

/**
 * The built-ins, with the LLM judges reading their model settings from `judgeEnv(id)` instead of
 * `process.env`: how the integration test kit points each judge at its own scripted model.
 */
export function createBuiltInEvaluators(options: { judgeEnv?: JudgeEnvironment } = {}): readonly EvaluatorDefinition[] {
  const { judgeEnv } = options;
  if (!judgeEnv) return BUILT_IN_EVALUATORS;
  return BUILT_IN_EVALUATORS.map((definition) => {
    if (definition === llmJudgeEvaluator) return createLlmJudgeEvaluator({ env: judgeEnv(definition.id) });
    if (definition === criteriaJudgeEvaluator) return createCriteriaJudgeEvaluator({ env: judgeEnv(definition.id) });
    return definition;
  });
}

export {
  containsEvaluator,
  criteriaJudgeEvaluator,
  humanReviewEvaluator,
  jsonSchemaEvaluator,
  llmJudgeEvaluator,
  regexEvaluator,
  replyLengthEvaluator,
  toolCallRequiredEvaluator,
};
