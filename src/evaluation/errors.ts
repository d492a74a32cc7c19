/**
 * Errors of the evaluator API. Messages read `<where>: <what> (<hint>)`; the original error, if
 * any, is the `cause`. Thrown inside `evaluate`, each of them makes that evaluation **failed**.
 */

/** An `Evaluation` built with a bad value (a score that is not a number, an empty label…). */
export class InvalidEvaluationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidEvaluationError';
  }
}

/** `config().getX(key)` for a key that neither the binding nor the evaluator entry sets. */
export class MissingConfigPropertyError extends Error {
  readonly key: string;
  constructor(key: string, message: string) {
    super(message);
    this.name = 'MissingConfigPropertyError';
    this.key = key;
  }
}

/** `config().getX(key)` for a key whose value is not of the type asked for. */
export class ConfigPropertyTypeError extends Error {
  readonly key: string;
  constructor(key: string, message: string) {
    super(message);
    this.name = 'ConfigPropertyTypeError';
    this.key = key;
  }
}

/** `ledger.getInteraction(id)` for an id the ledger does not hold. */
export class InteractionNotFoundError extends Error {
  readonly interactionId: string;
  constructor(interactionId: string) {
    super(`ledger: interaction ${interactionId} not found`);
    this.name = 'InteractionNotFoundError';
    this.interactionId = interactionId;
  }
}

/** `ledger.getConversation(conversationId, agentId)` for a conversation the ledger does not hold. */
export class ConversationNotFoundError extends Error {
  readonly conversationId: string;
  readonly agentId: string;
  constructor(conversationId: string, agentId: string, revision?: number) {
    super(
      `ledger: conversation ${conversationId} of agent ${agentId}` +
        `${revision === undefined ? '' : ` (revision ${revision}, over)`} not found`,
    );
    this.name = 'ConversationNotFoundError';
    this.conversationId = conversationId;
    this.agentId = agentId;
  }
}

/**
 * An evaluation of a subject its evaluator does not declare it can judge (a conversation given to
 * an evaluator defined with `subjects: ['interaction']`).
 */
export class UnsupportedSubjectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedSubjectError';
  }
}

/**
 * A bad evaluator definition: `defineEvaluator` with a bad id, version or `create`; a durable
 * evaluator's bad settings, step declaration or retry policy. `field` names the setting when one is
 * at fault (`retry.maximumAttempts`).
 */
export class EvaluatorDefinitionError extends Error {
  readonly field: string | undefined;
  constructor(message: string, options?: { cause?: unknown; field?: string }) {
    super(message, options);
    this.name = 'EvaluatorDefinitionError';
    this.field = options?.field;
  }
}

/**
 * How a failed evaluation is explained when `evaluate` did not throw an Error: it returned
 * something that is not an effect, or the evaluation timed out. The `cause` is the original value.
 */
export class EvaluatorFailedError extends Error {
  /** Recorded on the failed outcome: what the evaluator spent before failing (a judge's token usage). */
  readonly attributes?: Readonly<Record<string, string | number | boolean>>;
  constructor(message: string, options?: { cause?: unknown; attributes?: Record<string, string | number | boolean> }) {
    super(message, options);
    this.name = 'EvaluatorFailedError';
    if (options?.attributes !== undefined) this.attributes = Object.freeze({ ...options.attributes });
  }
}

/**
 * A durable evaluator's effect or step the runtime cannot follow: a transition to a step that is
 * not declared, `updateState` without a transition, a transition after `complete`, a state or
 * input that is not JSON. `step` names the step that produced it.
 */
export class DurableEffectError extends Error {
  readonly step: string | undefined;
  constructor(message: string, options?: { cause?: unknown; step?: string }) {
    super(message, options);
    this.name = 'DurableEffectError';
    this.step = options?.step;
  }
}

/** The `attributes` an `EvaluatorFailedError` carries (from any copy of the module). */
export function failureAttributes(error: unknown): Record<string, string | number | boolean> | undefined {
  const attributes = (error as { attributes?: unknown } | undefined)?.attributes;
  if (!(error instanceof Error) || typeof attributes !== 'object' || attributes === null) return undefined;
  const entries = Object.entries(attributes).filter(([, value]) =>
    ['string', 'number', 'boolean'].includes(typeof value),
  );
  return entries.length > 0 ? (Object.fromEntries(entries) as Record<string, string | number | boolean>) : undefined;
}
