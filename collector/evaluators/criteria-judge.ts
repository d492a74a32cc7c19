/**
 * `criteria-judge`: a model judges the interaction once per criterion. Properties: `criteria`
 * (exactly a scenario's `eval_criteria`: strings or mappings with `name`, `description`,
 * `criterion_type` binary | scored | rubric, `require_tool_call`, `weight`, `pass_threshold`),
 * `prompt_template` (replaces the judge's default instructions), `model` (default `EVALON_MODEL`),
 * `max_input_tokens` (default 100,000: each criterion's request, transcript shortened to fit).
 *
 * A durable evaluator: `onEvaluation` reads the criteria, prompt and model (kept in the state, so
 * one evaluation judges against one consistent configuration even if it changes mid-way), then
 * one step per criterion (one model call, its result and token usage added to the state), then
 * `combine`. A restart mid-evaluation resumes with the next criterion: criteria already judged
 * are not asked again.
 *
 * `require_tool_call` is decided from the interaction's recorded tool calls: a missing call fails
 * the criterion without a model call. The score is Σ score·weight / Σ weight; the evaluation passes
 * when every criterion with a weight above 0 passes (src/judge, `overallPassed`). A criterion whose
 * verdict stays unreadable after one retry, or whose model call fails (after the client's own
 * retries), fails the whole evaluation at once (a failed record, never a pass), carrying the
 * tokens spent so far. The verdict and such a failure carry `evalon.judge.transcript.omitted_chars`:
 * the most any criterion's request left out of the transcript.
 *
 * A conversation is judged as a whole: one transcript turn per interaction, in order, each headed
 * `[turn 2 of 5] <interaction id>` (conversation-transcript.ts), under instructions that say so;
 * `require_tool_call` is met when any of its interactions made the call.
 */
import { DurableEvaluator } from '../../src/evaluation/durable-evaluator.ts';
import { DurableSettings } from '../../src/evaluation/durable-settings.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import type { EvaluationContext } from '../../src/evaluation/evaluation-context.ts';
import { ConfigPropertyTypeError, EvaluatorFailedError } from '../../src/evaluation/errors.ts';
import { defineEvaluator, type EvaluatorDefinition } from '../../src/evaluation/evaluator.ts';
import type { EvaluatorConfig } from '../../src/evaluation/evaluator-config.ts';
import type { LedgerClient } from '../../src/evaluation/ledger-client.ts';
import {
  combineResults,
  judgeCriterion as judgeOneCriterion,
  type CriterionResult,
} from '../../src/judge/criteria-judge.ts';
import { criteriaSchema } from '../../src/judge/criterion-schema.ts';
import type { Criterion } from '../../src/judge/criterion.ts';
import { subjectInteractions, subjectNoun, subjectTranscript } from './conversation-transcript.ts';
import {
  calledTools,
  judgeModelClient,
  judgeModelName,
  JUDGE_TIMEOUT_MS,
  maxInputTokens,
  optionalText,
  transcriptAttributes,
  usageAttributes,
  withUsage,
  type JudgeEvaluatorOptions,
} from './llm-judge-support.ts';
import type { CircuitBreakers } from '../../src/judge/circuit-breaker.ts';
import { circuitBreakersOf, judgeCallsOf, type JudgeCallRecorder } from './judge-calls.ts';
import { criteriaJudgeProperties } from './judge-properties.ts';

const ID = 'criteria-judge';
/**
 * One criterion: one model call, with the client's retries and backoff and one retry of an
 * unreadable reply. The step itself is not retried: a failed call was already retried by the
 * client, and another run of an unreadable criterion would rarely read better.
 */
export const CRITERION_STEP_TIMEOUT_MS = 120_000;

/** The judge's instructions when no `prompt_template` is set. */
export const CRITERIA_JUDGE_PREAMBLE = [
  'You are an expert evaluator judging one interaction of an AI ' +
    'agent: what it was asked, the tools it called and what it replied.',
  'You will receive the transcript of the interaction and ONE evaluation criterion. Judge the transcript against ' +
    'that criterion only.',
].join(' ');

/** The judge's instructions for a conversation when no `prompt_template` is set. */
export const CONVERSATION_CRITERIA_PREAMBLE = [
  'You are an expert evaluator judging a whole conversation between an AI agent and its user, turn by turn:',
  'what the agent was asked in each turn, the tools it called and what it replied. Each turn starts with a',
  'header naming it ("[turn 2 of 5]" and the interaction\'s id).',
  'You will receive the transcript of the conversation and ONE evaluation criterion. Judge the conversation as a',
  'whole against that criterion only.',
].join(' ');

/** Saved after every step (JSON): what the evaluation judges against, and the results so far. */
export interface CriteriaJudgeState {
  criteria: Criterion[];
  promptTemplate: string;
  modelName: string;
  /** Tokens one criterion's request may take (absent in progress saved before it was kept: the default). */
  maxInputTokens?: number;
  /** One per judged criterion, in criterion order. */
  results: CriterionResult[];
  /** Model calls answered so far. */
  calls: number;
}

export class CriteriaJudgeEvaluator extends DurableEvaluator<CriteriaJudgeState> {
  readonly #ledger: LedgerClient;
  readonly #options: JudgeEvaluatorOptions;
  readonly #judgeCalls: JudgeCallRecorder | undefined;
  readonly #circuitBreakers: CircuitBreakers | undefined;

  /**
   * `judgeCalls`: where each model call is reported (the runtime's recorder; none in the test kit);
   * `circuitBreakers`: the collector's breakers in front of the judge models.
   */
  constructor(
    ledger: LedgerClient,
    options: JudgeEvaluatorOptions = {},
    judgeCalls?: JudgeCallRecorder,
    circuitBreakers?: CircuitBreakers,
  ) {
    super();
    this.#ledger = ledger;
    this.#options = options;
    this.#judgeCalls = judgeCalls;
    this.#circuitBreakers = circuitBreakers;
  }

  override settings(): DurableSettings {
    return DurableSettings.defaults()
      .withEvaluationTimeout(JUDGE_TIMEOUT_MS)
      .withDefaultStepTimeout(CRITERION_STEP_TIMEOUT_MS);
  }

  /** Progress saved before steps had ids names `judgeCriterion`, the method: it resumes at "judge-criterion". */
  override steps() {
    return { 'judge-criterion': this.judgeCriterion, combine: this.combine };
  }

  async onEvaluation(context: EvaluationContext) {
    const config = context.config();
    const criteria = readCriteria(config);
    const noun = subjectNoun(context.subject);
    const promptTemplate =
      optionalText(config, ID, 'prompt_template') ??
      (noun === 'conversation' ? CONVERSATION_CRITERIA_PREAMBLE : CRITERIA_JUDGE_PREAMBLE);
    const interactions = await subjectInteractions(this.#ledger, context.subject);
    if (subjectTranscript(interactions).entries.length === 0)
      return this.effects().inconclusive(`the ${noun} has no messages to judge`);
    const modelName = judgeModelName(config, judgeModelClient(this.#options));
    const budget = maxInputTokens(config, ID);
    return this.effects()
      .updateState({ criteria, promptTemplate, modelName, maxInputTokens: budget, results: [], calls: 0 })
      .transitionTo(this.judgeCriterion)
      .withInput(0);
  }

  /** Judges criterion `index` (one model call, none for a missing required tool call). */
  async judgeCriterion(index: number) {
    const context = this.evaluationContext();
    const state = this.currentState();
    const interactions = await subjectInteractions(this.#ledger, context.subject);
    const client = judgeModelClient(
      this.#options,
      this.#judgeCalls,
      {
        // The last interaction's trace: the evaluation's span is there.
        traceId: interactions[interactions.length - 1].traceId,
        evaluationId: context.evaluationId,
        evaluatorId: context.evaluatorId,
      },
      this.#circuitBreakers,
    );
    let callError: unknown;
    const transcript = subjectTranscript(interactions);
    const result = await judgeOneCriterion(state.criteria[index], {
      transcript: transcript.entries,
      ...(transcript.turns !== undefined ? { turns: transcript.turns } : {}),
      model: client,
      promptTemplate: state.promptTemplate,
      modelName: state.modelName,
      ...(state.maxInputTokens !== undefined ? { maxInputTokens: state.maxInputTokens } : {}),
      calledTools: [...new Set(interactions.flatMap(calledTools))],
      signal: context.signal,
      onCallError: (error) => (callError = error),
    });
    const next: CriteriaJudgeState = {
      ...state,
      results: [...state.results, result],
      calls: state.calls + client.calls,
    };
    if (result.outcome === 'unparseable' || result.outcome === 'judge_error') {
      const sofar = combineResults(next.results);
      throw new EvaluatorFailedError(
        `evaluator ${ID}: no verdict for criterion "${result.name}": ${result.reasoning}`,
        {
          ...(callError !== undefined ? { cause: callError } : {}),
          attributes: {
            ...usageAttributes(sofar.usage, state.modelName),
            judge_calls: next.calls,
            ...transcriptAttributes(sofar.omittedChars),
          },
        },
      );
    }
    const effect = this.effects().updateState(next);
    return index + 1 < state.criteria.length
      ? effect.transitionTo(this.judgeCriterion).withInput(index + 1)
      : effect.transitionTo(this.combine);
  }

  /** Weighted score and the overall pass rule over every criterion's result. */
  combine() {
    const { results, modelName } = this.currentState();
    const verdict = combineResults(results);
    const failedNames = results.filter((result) => !result.passed).map((result) => result.name);
    const evaluation = Evaluation.of(verdict.passed, results.map(describeResult).join('\n'))
      .withScore(verdict.overallScore)
      .withLabel(verdict.passed ? 'pass' : 'fail')
      .withAttribute('criteria_passed', results.length - failedNames.length)
      .withAttribute('criteria_total', results.length)
      .withAttribute('criteria_failed', failedNames.join(','));
    const withTranscript = Object.entries(transcriptAttributes(verdict.omittedChars)).reduce(
      (evaluated, [key, value]) => evaluated.withAttribute(key, value),
      evaluation,
    );
    return this.effects().complete(withUsage(withTranscript, verdict.usage, modelName));
  }
}

export function createCriteriaJudgeEvaluator(options: JudgeEvaluatorOptions = {}): EvaluatorDefinition {
  return defineEvaluator({
    id: ID,
    description:
      'a model judges the interaction or conversation against each criterion (binary, ' +
      'scored, rubric; weighted), one durable step per criterion',
    timeoutMs: JUDGE_TIMEOUT_MS,
    type: 'llm_judge',
    properties: criteriaJudgeProperties,
    subjects: ['interaction', 'conversation'],
    create: (dependencies) =>
      new CriteriaJudgeEvaluator(
        dependencies.ledger,
        options,
        judgeCallsOf(dependencies),
        circuitBreakersOf(dependencies),
      ),
  });
}

/** `✓ name (score 0.8, threshold 0.5, weight 2): reasoning`, one line per criterion. */
function describeResult(result: CriterionResult): string {
  const facts = [
    ...(result.criterionType === 'binary' ? [] : [`score ${round(result.score)}`]),
    ...(result.passThreshold !== undefined ? [`threshold ${result.passThreshold}`] : []),
    ...(result.weight !== 1 ? [`weight ${result.weight}`] : []),
    ...(result.outcome === 'missing_tool_call' ? ['not judged: required tool call missing'] : []),
  ];
  const reasoning = result.reasoning.replace(/\s+/g, ' ').trim();
  return (
    `${result.passed ? '✓' : '✗'} ` +
    `${result.name}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}${reasoning ? `: ${reasoning}` : ''}`
  );
}

function readCriteria(config: EvaluatorConfig): Criterion[] {
  const parsed = criteriaSchema.safeParse(config.get('criteria'));
  if (!parsed.success) {
    const pathOf = (path: readonly PropertyKey[]) =>
      path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
    const problems = parsed.error.issues.map((issue) => `criteria${pathOf(issue.path)}: ${issue.message}`);
    throw new ConfigPropertyTypeError(
      'criteria',
      `evaluator ${ID}: config property "criteria" is not a valid criteria list: ${problems.join('; ')}`,
    );
  }
  if (parsed.data.length === 0)
    throw new ConfigPropertyTypeError('criteria', `evaluator ${ID}: config property "criteria" lists no criteria`);
  return parsed.data;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export const criteriaJudgeEvaluator = createCriteriaJudgeEvaluator();
