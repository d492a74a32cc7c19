/**
 * The criteria judge: one model call per criterion, all criteria concurrently, results in criterion
 * order. The same code backs the simulation's evaluation and the collector's `criteria-judge`
 * evaluator (which can call `judgeCriterion` once per durable step and `combineResults` at the end).
 *
 * `require_tool_call` is checked against the transcript's tool calls (a missing call fails the
 * criterion without asking the model), scored/rubric criteria without a threshold use
 * DEFAULT_PASS_THRESHOLD, an unreadable reply is retried once and then fails the criterion (fail
 * closed), and the verdict has an overall pass (docs/design-notes.md says why). Each criterion's
 * request is fitted to `maxInputTokens` (budgeted-call.ts); its result says how many characters of
 * the transcript it left out, the verdict the most any criterion did.
 */
import { budgetedCall } from './budgeted-call.ts';
import { effectiveThreshold, type Criterion, type CriterionType } from './criterion.ts';
import { DEFAULT_MAX_INPUT_TOKENS, fitRequest, type FittedRequest } from './input-budget.ts';
import { buildJudgeRequest, type JudgeContext } from './judge-prompt.ts';
import type { ModelClient, ModelMessage, ModelResponse, ModelUsage } from './model-client.ts';
import type { TranscriptTurn } from './shorten-transcript.ts';
import { toolCallsIn, type JudgeTranscriptEntry, type UserMessagePredicate } from './transcript.ts';
import { parseVerdict } from './verdict-parser.ts';

/** How a criterion's result was reached. */
export type CriterionOutcome =
  | 'judged'
  /** require_tool_call was not met by the transcript; the model was not asked. */
  | 'missing_tool_call'
  /** The judge's reply could not be read, even after a retry. */
  | 'unparseable'
  /** The model call failed (after the client's retries). */
  | 'judge_error'
  /** A deterministic check (e.g. a scenario's `expect_context`), no model involved. */
  | 'assertion';

export interface CriterionResult {
  name: string;
  description: string;
  criterionType: CriterionType | 'assertion';
  weight: number;
  passed: boolean;
  score: number;
  reasoning: string;
  outcome: CriterionOutcome;
  /** The threshold a scored or rubric criterion was held to. */
  passThreshold?: number;
  usage?: ModelUsage;
  /** Characters of the transcript left out of the request the judge last sent (absent: no request). */
  omittedChars?: number;
}

export interface JudgeVerdict {
  criteria: CriterionResult[];
  /** Σ score·weight / Σ weight (0 when the total weight is 0). */
  overallScore: number;
  /** Every criterion with a weight above 0 passed (see `overallPassed`). */
  passed: boolean;
  /** The non-empty reasonings joined with "; ". */
  summary: string;
  usage: ModelUsage;
  /** The most characters of the transcript any criterion's request left out (0: every request had it whole). */
  omittedChars: number;
}

export interface JudgeOptions extends JudgeContext {
  criteria: readonly Criterion[];
  transcript: readonly JudgeTranscriptEntry[];
  /**
   * Judged instead of `transcript` when set: a conversation, one turn per interaction, each turn
   * marked. `transcript` still names the tools called (unless `calledTools` does).
   */
  turns?: readonly TranscriptTurn[];
  /** Which messages are the user's, kept whole longest when shortening (default: sender `user` or `human`). */
  isUserMessage?: UserMessagePredicate;
  /** Tokens one request may take, estimated (default 100,000); the transcript is shortened to fit. */
  maxInputTokens?: number;
  /** Told each request fitted to the budget, again after a refusal as too long. */
  onTranscriptFitted?(fitted: FittedRequest): void;
  model: ModelClient;
  /** Calls per criterion when the reply is unreadable (default 2: one retry). */
  maxAttempts?: number;
  /**
   * Names of the tools actually called, which `require_tool_call` is checked against. Default: the
   * transcript's tool calls. The collector passes the interaction record's `toolCalls`.
   */
  calledTools?: readonly string[];
  /** Aborts the model calls (an aborted call is a `judge_error`). */
  signal?: AbortSignal;
  /**
   * Told the error of a model call that failed (the criterion is then a `judge_error`): the
   * collector keeps it as the cause, so an outage (a retryable `ModelCallError`) is told apart.
   */
  onCallError?(error: unknown): void;
}

export const DEFAULT_JUDGE_ATTEMPTS = 2;

export async function judgeCriteria(options: JudgeOptions): Promise<JudgeVerdict> {
  const results = await Promise.all(options.criteria.map((criterion) => judgeCriterion(criterion, options)));
  return combineResults(results);
}

/** Judges one criterion; never throws (a failed model call is a failed criterion). */
export async function judgeCriterion(
  criterion: Criterion,
  options: Omit<JudgeOptions, 'criteria'>,
): Promise<CriterionResult> {
  const base = {
    name: criterion.name,
    description: criterion.description,
    criterionType: criterion.criterionType,
    weight: criterion.weight,
    ...(effectiveThreshold(criterion) !== undefined ? { passThreshold: effectiveThreshold(criterion) } : {}),
  };
  const missing = missingToolCalls(criterion, options.transcript, options.calledTools);
  if (missing !== undefined)
    return { ...base, passed: false, score: 0, reasoning: missing, outcome: 'missing_tool_call' };

  const usage: ModelUsage = { input_tokens: 0, output_tokens: 0 };
  let omittedChars: number | undefined;
  const call = budgetedCall(
    options.model,
    options.maxInputTokens ?? DEFAULT_MAX_INPUT_TOKENS,
    (maxInputTokens) =>
      fitRequest({
        turns: options.turns ?? [{ entries: options.transcript }],
        maxInputTokens,
        ...(options.isUserMessage ? { isUserMessage: options.isUserMessage } : {}),
        build: (transcript) => buildJudgeRequest(criterion, transcript, options),
      }),
    (fitted) => {
      omittedChars = fitted.transcript.omittedChars;
      options.onTranscriptFitted?.(fitted);
    },
  );
  const judged = () => (omittedChars !== undefined ? { omittedChars } : {});
  const attempts = Math.max(1, options.maxAttempts ?? DEFAULT_JUDGE_ATTEMPTS);
  let extra: ModelMessage[] = [];
  let problem = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let response: ModelResponse;
    try {
      response = await call.send(extra, options.signal ? { signal: options.signal } : undefined);
    } catch (error) {
      options.onCallError?.(error);
      const reason = `judge call failed: ${error instanceof Error ? error.message : String(error)}`;
      return { ...base, passed: false, score: 0, reasoning: reason, outcome: 'judge_error', usage, ...judged() };
    }
    usage.input_tokens += response.usage.input_tokens;
    usage.output_tokens += response.usage.output_tokens;
    const verdict = parseVerdict(response, criterion.criterionType);
    if (verdict.ok) {
      if (criterion.criterionType === 'binary') {
        const passed = verdict.passed === true;
        return {
          ...base,
          passed,
          score: passed ? 1 : 0,
          reasoning: verdict.reasoning,
          outcome: 'judged',
          usage,
          ...judged(),
        };
      }
      const score = verdict.score ?? 0;
      return {
        ...base,
        passed: score >= base.passThreshold!,
        score,
        reasoning: verdict.reasoning,
        outcome: 'judged',
        usage,
        ...judged(),
      };
    }
    problem = verdict.problem;
    extra = retryMessages(verdict.raw, verdict.problem);
  }
  return {
    ...base,
    passed: false,
    score: 0,
    reasoning: `judge reply unreadable after ${attempts} attempt(s): ${problem}`,
    outcome: 'unparseable',
    usage,
    ...judged(),
  };
}

/** Weighted score, overall pass and summary of per-criterion results (in their order). */
export function combineResults(results: CriterionResult[]): JudgeVerdict {
  const totalWeight = results.reduce((sum, result) => sum + result.weight, 0);
  const weighted = results.reduce((sum, result) => sum + result.score * result.weight, 0);
  const usage = results.reduce(
    (sum, result) => ({
      input_tokens: sum.input_tokens + (result.usage?.input_tokens ?? 0),
      output_tokens: sum.output_tokens + (result.usage?.output_tokens ?? 0),
    }),
    { input_tokens: 0, output_tokens: 0 },
  );
  return {
    criteria: results,
    overallScore: totalWeight > 0 ? weighted / totalWeight : 0,
    passed: overallPassed(results),
    summary: results
      .map((result) => result.reasoning)
      .filter((reasoning) => reasoning.trim() !== '')
      .join('; '),
    usage,
    omittedChars: results.reduce((most, result) => Math.max(most, result.omittedChars ?? 0), 0),
  };
}

/**
 * The overall pass rule, written once: every criterion that carries weight passes. A criterion
 * with weight 0 is informational. No criteria at all is a pass (nothing was asked).
 */
export function overallPassed(results: readonly CriterionResult[]): boolean {
  return results.every((result) => result.weight === 0 || result.passed);
}

/** Why the transcript fails the criterion's tool requirement, or undefined when it is met. */
export function missingToolCalls(
  criterion: Criterion,
  transcript: readonly JudgeTranscriptEntry[],
  calledTools?: readonly string[],
): string | undefined {
  const required = criterion.requireToolCall;
  if (required === false) return undefined;
  const called = new Set(calledTools ?? toolCallsIn(transcript));
  if (required === true) {
    return called.size > 0 ? undefined : 'This criterion requires a tool call, and the transcript records none.';
  }
  const missing = required.filter((tool) => !called.has(tool));
  if (missing.length === 0) return undefined;
  return `This criterion requires a call of ${missing.join(', ')}, which the transcript does not record.`;
}

/** What follows the request after an unreadable reply: the reply, and what was wrong with it. */
function retryMessages(raw: string, problem: string): ModelMessage[] {
  return [
    { role: 'assistant', content: raw.trim() === '' ? '(empty reply)' : raw },
    {
      role: 'user',
      content: `That reply could not be read: ${problem}. Record the verdict again, exactly in the format asked for.`,
    },
  ];
}
