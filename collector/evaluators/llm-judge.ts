/**
 * `llm-judge`: a model judges the interaction against a rubric. Properties: `rubric` (what a good
 * interaction looks like) and/or `prompt_template` (replaces the judge's default instructions; the
 * transcript is never substituted into it), `model` (default `EVALON_MODEL`), `pass_threshold`
 * (0..1: passed = score >= threshold; without it, the judge's own `passed`).
 *
 * The verdict is a forced `record_verdict` tool call validated with zod: score, label and
 * explanation. An unreadable reply is asked for once more, then the evaluation fails (a failed
 * record, never a pass); so does a model call that fails after the client's retries. Token usage
 * goes on the Evaluation as `gen_ai.usage.input_tokens` / `gen_ai.usage.output_tokens` with
 * `gen_ai.request.model`; when the judge fails after calling the model, the same attributes (and
 * `judge_calls`) go on the failed outcome. Each model call is a `chat <model>` span in the
 * interaction's trace, child of this evaluation's span, through the recorder the runtime creates
 * the evaluator with (judge-calls.ts).
 *
 * A conversation is judged as a whole: every turn's transcript in order, each turn marked
 * (conversation-transcript.ts), under instructions that say so (unless `prompt_template` is set).
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
  optionalText,
  optionalThreshold,
  usageAttributes,
  withUsage,
  type JudgeEvaluatorOptions,
} from './llm-judge-support.ts';
import { judgeCallsOf } from './judge-calls.ts';

const ID = 'llm-judge';

/** The judge's instructions for a conversation when no `prompt_template` is set. */
export const CONVERSATION_RUBRIC_PREAMBLE = [
  'You are an expert evaluator judging a whole conversation between an AI agent and its user, turn by turn:',
  'what the agent was asked in each turn, the tools it called and what it replied.',
  'Each turn starts with an event naming it ("turn 2 of 5"). Judge the conversation as a whole against the',
  'rubric below, and only against it.',
].join(' ');

export function createLlmJudgeEvaluator(options: JudgeEvaluatorOptions = {}): EvaluatorDefinition {
  return defineEvaluator({
    id: ID,
    description: 'a model judges the interaction or conversation against a rubric (score, label, explanation)',
    timeoutMs: JUDGE_TIMEOUT_MS,
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
        const noun = subjectNoun(context.subject);
        const interactions = await subjectInteractions(ledger, context.subject);
        const transcript = subjectTranscript(interactions);
        if (transcript.length === 0) return effects.inconclusive(`the ${noun} has no messages to judge`);
        const instructions = promptTemplate ?? (noun === 'conversation' ? CONVERSATION_RUBRIC_PREAMBLE : undefined);
        const client = judgeModelClient(options, judgeCallsOf(dependencies), {
          // The last interaction's trace: the evaluation's span is there.
          traceId: interactions[interactions.length - 1].traceId,
          evaluationId: context.evaluationId,
          evaluatorId: context.evaluatorId,
        });
        const modelName = judgeModelName(config, client);
        let verdict: RubricVerdict;
        try {
          verdict = await judgeRubric({
            model: client,
            transcript,
            modelName,
            ...(rubric !== undefined ? { rubric } : {}),
            ...(instructions !== undefined ? { promptTemplate: instructions } : {}),
            ...(passThreshold !== undefined ? { passThreshold } : {}),
            signal: context.signal,
          });
        } catch (error) {
          if (client.calls === 0) throw error;
          // Tokens were spent: the failed outcome reports them (and the token metric counts them).
          const message = error instanceof Error ? error.message || error.name : String(error);
          throw new EvaluatorFailedError(message, {
            cause: error,
            attributes: { ...usageAttributes(client.usage, modelName), judge_calls: client.calls },
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
        return effects.complete(withUsage(evaluation, verdict.usage, verdict.model));
      },
    }),
  });
}

export const llmJudgeEvaluator = createLlmJudgeEvaluator();
