/**
 * `llm-judge`: a model judges the interaction against a rubric. Properties: `rubric` (what a good
 * interaction looks like) and/or `prompt_template` (replaces the judge's default instructions; the
 * transcript is never substituted into it), `model` (default `EVALON_MODEL`), `pass_threshold`
 * (0..1: passed = score >= threshold; without it, the judge's own `passed`), `max_input_tokens`
 * (default 100,000: the transcript is shortened to fit, src/judge/shorten-transcript.ts).
 *
 * The verdict is a forced `record_verdict` tool call validated with zod: score, label and
 * explanation. An unreadable reply is asked for once more, then the evaluation fails (a failed
 * record, never a pass); so does a model call that fails after the client's retries. Token usage
 * goes on the Evaluation as `gen_ai.usage.input_tokens` / `gen_ai.usage.output_tokens` with
 * `gen_ai.request.model`; when the judge fails after calling the model, the same attributes (and
 * `judge_calls`) go on the failed outcome. Every verdict, and every failed outcome of a judge that
 * sent a request, carries `evalon.judge.transcript.omitted_chars`. Each model call is a
 * `chat <model>` span in the interaction's trace, child of this evaluation's span, through the
 * recorder the runtime creates the evaluator with (judge-calls.ts).
 */
import { effects } from '../../src/evaluation/effect.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import { EvaluatorFailedError, MissingConfigPropertyError } from '../../src/evaluation/errors.ts';
import { defineEvaluator, type EvaluatorDefinition } from '../../src/evaluation/evaluator.ts';
import { judgeRubric, type RubricVerdict } from '../../src/judge/rubric-judge.ts';
import {
  judgeModelClient,
  judgeModelName,
  judgeTranscript,
  JUDGE_TIMEOUT_MS,
  maxInputTokens,
  optionalText,
  optionalThreshold,
  transcriptAttributes,
  usageAttributes,
  withUsage,
  type JudgeEvaluatorOptions,
} from './llm-judge-support.ts';
import { circuitBreakersOf, judgeCallsOf } from './judge-calls.ts';
import { llmJudgeProperties } from './judge-properties.ts';

const ID = 'llm-judge';

export function createLlmJudgeEvaluator(options: JudgeEvaluatorOptions = {}): EvaluatorDefinition {
  return defineEvaluator({
    id: ID,
    description: 'a model judges the interaction against a rubric (score, label, explanation)',
    properties: llmJudgeProperties,
    timeoutMs: JUDGE_TIMEOUT_MS,
    type: 'llm_judge',
    create: (dependencies) => ({
      async evaluate(context) {
        const { ledger } = dependencies;
        const config = context.config();
        const rubric = optionalText(config, ID, 'rubric');
        const promptTemplate = optionalText(config, ID, 'prompt_template');
        if (rubric === undefined && promptTemplate === undefined) {
          throw new MissingConfigPropertyError(
            'rubric',
            `evaluator ${ID}: config property "rubric" (or "prompt_template") is not set`,
          );
        }
        const passThreshold = optionalThreshold(config, ID);
        const budget = maxInputTokens(config, ID);
        const interaction = await ledger.getInteraction(context.subject.interactionId);
        const transcript = judgeTranscript(interaction);
        if (transcript.length === 0) return effects.inconclusive('the interaction has no messages to judge');
        const client = judgeModelClient(
          options,
          judgeCallsOf(dependencies),
          { traceId: interaction.traceId, evaluationId: context.evaluationId, evaluatorId: context.evaluatorId },
          circuitBreakersOf(dependencies),
        );
        const modelName = judgeModelName(config, client);
        let verdict: RubricVerdict;
        let omittedChars: number | undefined;
        try {
          verdict = await judgeRubric({
            model: client,
            transcript,
            maxInputTokens: budget,
            onTranscriptFitted: (fitted) => (omittedChars = fitted.transcript.omittedChars),
            modelName,
            ...(rubric !== undefined ? { rubric } : {}),
            ...(promptTemplate !== undefined ? { promptTemplate } : {}),
            ...(passThreshold !== undefined ? { passThreshold } : {}),
            signal: context.signal,
          });
        } catch (error) {
          if (omittedChars === undefined) throw error;
          // The judge ran: the failed outcome says what it read, and the tokens it spent if any were
          // (the token metric counts them).
          const message = error instanceof Error ? error.message || error.name : String(error);
          throw new EvaluatorFailedError(message, {
            cause: error,
            attributes: {
              ...(client.calls > 0 ? { ...usageAttributes(client.usage, modelName), judge_calls: client.calls } : {}),
              ...transcriptAttributes(omittedChars),
            },
          });
        }
        let evaluation = Evaluation.of(
          verdict.passed,
          verdict.explanation.trim() ||
            (verdict.passed ? 'the judge passed the interaction' : 'the judge failed the interaction'),
        )
          .withScore(verdict.score)
          .withLabel(verdict.label ?? (verdict.passed ? 'pass' : 'fail'));
        if (passThreshold !== undefined)
          evaluation = evaluation
            .withAttribute('pass_threshold', passThreshold)
            .withAttribute('judge_passed', verdict.judgePassed);
        if (verdict.calls > 1) evaluation = evaluation.withAttribute('judge_calls', verdict.calls);
        for (const [key, value] of Object.entries(transcriptAttributes(verdict.omittedChars)))
          evaluation = evaluation.withAttribute(key, value);
        return effects.complete(withUsage(evaluation, verdict.usage, verdict.model));
      },
    }),
  });
}

export const llmJudgeEvaluator = createLlmJudgeEvaluator();
