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
 *
 * A conversation is judged as a whole: one transcript turn per interaction, in order, each headed
 * `[turn 2 of 5] <interaction id>` (conversation-transcript.ts), under instructions that say so
 * (unless `prompt_template` is set). Shortening leaves whole early turns out first.
 */
import { effects } from '../../src/evaluation/effect.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import { EvaluatorFailedError, MissingConfigPropertyError } from '../../src/evaluation/errors.ts';
import { defineEvaluator, type EvaluatorDefinition } from '../../src/evaluation/evaluator.ts';
import { judgeRubric, type RubricVerdict } from '../../src/judge/rubric-judge.ts';
import { subjectInteractions, subjectNoun, subjectTranscript } from './conversation-transcript.ts';
import {
  judgeModelClient,
  judgeModelName,
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

/** The judge's instructions for a conversation when no `prompt_template` is set. */
export const CONVERSATION_RUBRIC_PREAMBLE = [
  'You are an expert evaluator judging a whole conversation between an AI agent and its user, turn by turn:',
  'what the agent was asked in each turn, the tools it called and what it replied.',
  'Each turn starts with a header naming it ("[turn 2 of 5]" and the interaction\'s id). Judge the conversation',
  'as a whole against the rubric below, and only against it.',
].join(' ');

export function createLlmJudgeEvaluator(options: JudgeEvaluatorOptions = {}): EvaluatorDefinition {
  return defineEvaluator({
    id: ID,
    description: 'a model judges the interaction or conversation against a rubric (score, label, explanation)',
    properties: llmJudgeProperties,
    timeoutMs: JUDGE_TIMEOUT_MS,
    type: 'llm_judge',
    subjects: ['interaction', 'conversation'],
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
        const noun = subjectNoun(context.subject);
        const interactions = await subjectInteractions(ledger, context.subject);
        const transcript = subjectTranscript(interactions);
        if (transcript.entries.length === 0) return effects.inconclusive(`the ${noun} has no messages to judge`);
        const instructions = promptTemplate ?? (noun === 'conversation' ? CONVERSATION_RUBRIC_PREAMBLE : undefined);
        const client = judgeModelClient(
          options,
          judgeCallsOf(dependencies),
          {
            // The last interaction's trace: the evaluation's span is there.
            traceId: interactions[interactions.length - 1].traceId,
            evaluationId: context.evaluationId,
            evaluatorId: context.evaluatorId,
          },
          circuitBreakersOf(dependencies),
        );
        const modelName = judgeModelName(config, client);
        let verdict: RubricVerdict;
        let omittedChars: number | undefined;
        try {
          verdict = await judgeRubric({
            model: client,
            transcript: transcript.entries,
            ...(transcript.turns !== undefined ? { turns: transcript.turns } : {}),
            maxInputTokens: budget,
            onTranscriptFitted: (fitted) => (omittedChars = fitted.transcript.omittedChars),
            modelName,
            ...(rubric !== undefined ? { rubric } : {}),
            ...(instructions !== undefined ? { promptTemplate: instructions } : {}),
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
            (verdict.passed ? `the judge passed the ${noun}` : `the judge failed the ${noun}`),
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
