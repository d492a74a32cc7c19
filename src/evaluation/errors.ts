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

/** A bad evaluator definition (`defineEvaluator` with a bad id, version or `create`). */
export class EvaluatorDefinitionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EvaluatorDefinitionError';
  }
}

/**
 * How a failed evaluation is explained when `evaluate` did not throw an Error: it returned
 * something that is not an effect, or the evaluation timed out. The `cause` is the original value.
 */
export class EvaluatorFailedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EvaluatorFailedError';
  }
}
