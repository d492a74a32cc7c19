/**
 * An evaluator module: listed in `processors.evaluation.modules` of otel-config.yaml, loaded at
 * startup. Every evaluator definition it exports is registered under its id.
 */
export { interactionQualityEvaluator } from './interaction-quality-evaluator.ts';
export { repeatedQuestionEvaluator } from './repeated-question-evaluator.ts';
export { replyLengthEvaluator } from './reply-length-evaluator.ts';
export { transcriptJudgeDurableEvaluator } from './transcript-judge-durable-evaluator.ts';
