/**
 * `Evaluation`: the verdict an evaluator records. Immutable:
 * each `with*` returns a new Evaluation, so one can be built up fluently and shared safely.
 *
 * ```ts
 * Evaluation.passed('Response was accurate and helpful')
 *   .withScore(0.92)
 *   .withLabel('excellent')
 *   .withAttribute('model', 'gpt-4o')
 * ```
 */
import type { EvaluationAttributeValue, EvaluationData } from '../model/records.ts';
import { InvalidEvaluationError } from './errors.ts';

export type { EvaluationAttributeValue, EvaluationData };

export class Evaluation {
  /** The overall verdict. */
  readonly passed: boolean;
  /** Why; for several criteria, the result per criterion. */
  readonly explanation: string;
  /** A quantitative result, when the evaluator gives one. */
  readonly score: number | undefined;
  /** A categorical result, when the evaluator gives one. */
  readonly label: string | undefined;
  readonly attributes: Readonly<Record<string, EvaluationAttributeValue>>;

  private constructor(data: {
    passed: boolean;
    explanation: string;
    score?: number;
    label?: string;
    attributes: Record<string, EvaluationAttributeValue>;
  }) {
    this.passed = data.passed;
    this.explanation = data.explanation;
    this.score = data.score;
    this.label = data.label;
    this.attributes = Object.freeze({ ...data.attributes });
    Object.freeze(this);
  }

  /** A passing verdict. */
  static passed(explanation: string): Evaluation {
    return Evaluation.of(true, explanation);
  }

  /** A failing verdict. */
  static failed(explanation: string): Evaluation {
    return Evaluation.of(false, explanation);
  }

  /** A verdict computed by the evaluator: `Evaluation.of(length >= minLength, 'reply of …')`. */
  static of(passed: boolean, explanation: string): Evaluation {
    if (typeof passed !== 'boolean')
      throw new InvalidEvaluationError(`Evaluation.of: passed must be a boolean (got ${describe(passed)})`);
    if (typeof explanation !== 'string') {
      throw new InvalidEvaluationError(`Evaluation.of: explanation must be a string (got ${describe(explanation)})`);
    }
    return new Evaluation({ passed, explanation, attributes: {} });
  }

  /** Rebuilds an Evaluation from its JSON shape (as read from the ledger). */
  static fromData(data: EvaluationData): Evaluation {
    let evaluation = Evaluation.of(data.passed, data.explanation);
    if (data.score !== undefined) evaluation = evaluation.withScore(data.score);
    if (data.label !== undefined) evaluation = evaluation.withLabel(data.label);
    for (const [key, value] of Object.entries(data.attributes ?? {})) evaluation = evaluation.withAttribute(key, value);
    return evaluation;
  }

  /** A finite number; any scale the evaluator documents (0..1 is usual). */
  withScore(score: number): Evaluation {
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw new InvalidEvaluationError(`Evaluation.withScore: score must be a finite number (got ${describe(score)})`);
    }
    return new Evaluation({ ...this.data(), score });
  }

  withLabel(label: string): Evaluation {
    if (typeof label !== 'string' || label === '') {
      throw new InvalidEvaluationError(
        `Evaluation.withLabel: label must be a non-empty string (got ${describe(label)})`,
      );
    }
    return new Evaluation({ ...this.data(), label });
  }

  withAttribute(key: string, value: EvaluationAttributeValue): Evaluation {
    if (typeof key !== 'string' || key === '') {
      throw new InvalidEvaluationError(
        `Evaluation.withAttribute: key must be a non-empty string (got ${describe(key)})`,
      );
    }
    const ok =
      typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
    if (!ok) {
      throw new InvalidEvaluationError(
        `Evaluation.withAttribute: the value of "${key}" must be a ` +
          `string, a finite number or a boolean (got ${describe(value)})`,
      );
    }
    const data = this.data();
    return new Evaluation({ ...data, attributes: { ...data.attributes, [key]: value } });
  }

  /** The JSON shape, without absent fields. */
  toJSON(): EvaluationData {
    return this.data();
  }

  private data(): EvaluationData {
    const data: EvaluationData = {
      passed: this.passed,
      explanation: this.explanation,
      attributes: { ...this.attributes },
    };
    if (this.score !== undefined) data.score = this.score;
    if (this.label !== undefined) data.label = this.label;
    return data;
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  return typeof value;
}
