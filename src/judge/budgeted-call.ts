/**
 * Sending a judge request within its input budget. The request is fitted to `max_input_tokens`
 * (input-budget.ts); when the model still refuses it as too long (a 400 "prompt is too long":
 * the estimate was off for this text or this model has a smaller window), it is fitted again to
 * half the budget and sent once more. Refused again, the call fails with JudgeInputTooLongError,
 * which names the sizes of both attempts.
 */
import { isPromptTooLongError } from './anthropic-model-client.ts';
import type { FittedRequest } from './input-budget.ts';
import type { ModelCallOptions, ModelClient, ModelMessage, ModelResponse } from './model-client.ts';
import { thousands } from './shortened-transcript.ts';

/** The model refused the judge's input as too long, at the full budget and at half of it. */
export class JudgeInputTooLongError extends Error {
  /** The two requests refused, in order: sizes and budgets. */
  readonly attempts: ReadonlyArray<Pick<FittedRequest, 'requestChars' | 'estimatedTokens' | 'maxInputTokens'>>;
  constructor(first: FittedRequest, second: FittedRequest, cause: unknown) {
    const size = (fitted: FittedRequest) =>
      `${thousands(fitted.requestChars)} characters (~${thousands(fitted.estimatedTokens)} tokens estimated)`;
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `judge input too long for the model: refused at ${size(first)} within max_input_tokens ` +
        `${thousands(first.maxInputTokens)}, and again at ${size(second)} within half of it ` +
        `(${thousands(second.maxInputTokens)}): ${reason} (set max_input_tokens below the model's context ` +
        'window minus its output tokens)',
      { cause },
    );
    this.name = 'JudgeInputTooLongError';
    this.attempts = [first, second].map(({ requestChars, estimatedTokens, maxInputTokens }) => ({
      requestChars,
      estimatedTokens,
      maxInputTokens,
    }));
  }
}

export interface BudgetedCall {
  /** The request as last fitted (after a refusal, the one fitted to half the budget). */
  readonly fitted: FittedRequest;
  /**
   * Sends the fitted request, with `extraMessages` after its own (a retry's correction). A
   * refusal as too long refits it to half the budget and sends again, once per judge call.
   */
  send(extraMessages?: readonly ModelMessage[], options?: ModelCallOptions): Promise<ModelResponse>;
}

/**
 * A judge call within `maxInputTokens`: `fitTo` builds the request for a budget; `onFitted` is told
 * each request fitted (the judges report the characters omitted from the last one).
 */
export function budgetedCall(
  model: ModelClient,
  maxInputTokens: number,
  fitTo: (maxInputTokens: number) => FittedRequest,
  onFitted?: (fitted: FittedRequest) => void,
): BudgetedCall {
  if (!Number.isFinite(maxInputTokens) || maxInputTokens < 1)
    throw new RangeError(`judge: maxInputTokens must be a positive number of tokens (got ${maxInputTokens})`);
  let fitted = fitTo(maxInputTokens);
  onFitted?.(fitted);
  let refused: FittedRequest | undefined;
  return {
    get fitted() {
      return fitted;
    },
    async send(extraMessages = [], options) {
      for (;;) {
        const request = { ...fitted.request, messages: [...fitted.request.messages, ...extraMessages] };
        try {
          return await model.createMessage(request, options);
        } catch (error) {
          if (!isPromptTooLongError(error)) throw error;
          if (refused) throw new JudgeInputTooLongError(refused, fitted, error);
          refused = fitted;
          fitted = fitTo(Math.max(1, Math.floor(fitted.maxInputTokens / 2)));
          onFitted?.(fitted);
        }
      }
    },
  };
}
