/**
 * `EvaluatorTestKit`: runs an evaluator's `evaluate` over a chosen subject and returns the outcome,
 * exactly as the collector would record it (the same code runs both), without a collector.
 *
 * ```ts
 * const stubLedger = TestLedgerClient.create().seed(testInteractionRecord({ interactionId: 'interaction-1' }));
 * const testKit = EvaluatorTestKit.of(() => new ReplyLengthEvaluator(stubLedger)).withConfig('min-length: 20');
 * const result = await testKit.evaluate(Subject.interaction('interaction-1', 'support-agent'));
 * expect(result.isComplete()).toBe(true);
 * expect(result.getEvaluation().passed).toBe(true);
 * ```
 * A durable evaluator runs every step in memory; `withProgress` resumes it from saved progress, as
 * a collector does after a restart (to check that progress an earlier version saved still resumes).
 * A step that waits for a signal (`awaitSignal`) gets at once the payload `withSignal` gave that
 * signal, else a timed-out arrival: no one can send a signal to an evaluation in memory.
 */
import { randomUUID } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { InteractionSubject, Subject } from '../evaluation/evaluation-context.ts';
import {
  isEvaluatorDefinition,
  DEFAULT_EVALUATION_TIMEOUT_MS,
  type Evaluator,
  type EvaluatorDefinition,
} from '../evaluation/evaluator.ts';
import type { LedgerClient } from '../evaluation/ledger-client.ts';
import { runEvaluator } from '../evaluation/run-evaluator.ts';
import type { DurableProgress } from '../model/records.ts';
import { EvaluatorResult } from './evaluator-test-kit-result.ts';
import { TestLedgerClient } from './test-ledger-client.ts';

interface KitSettings {
  make: (ledger: LedgerClient) => Evaluator;
  evaluatorId: string;
  config: Record<string, unknown>;
  ledger: LedgerClient;
  timeoutMs: number;
  progress?: DurableProgress;
  signals?: Record<string, unknown>;
}

export class EvaluatorTestKit {
  readonly #settings: KitSettings;

  private constructor(settings: KitSettings) {
    this.#settings = settings;
  }

  /**
   * From a factory that makes the evaluator (called once per evaluation, as the runtime does), or
   * from an evaluator definition (`create` receives the kit's ledger, see `withLedger`).
   */
  static of(factory: (() => Evaluator) | EvaluatorDefinition): EvaluatorTestKit {
    if (isEvaluatorDefinition(factory)) {
      const definition = factory;
      return new EvaluatorTestKit({
        make: (ledger) => definition.create({ ledger }),
        evaluatorId: definition.id,
        config: {},
        ledger: TestLedgerClient.create(),
        timeoutMs: definition.timeoutMs,
      });
    }
    if (typeof factory !== 'function')
      throw new TypeError('EvaluatorTestKit.of: expected a factory function or an evaluator definition');
    return new EvaluatorTestKit({
      make: () => factory(),
      evaluatorId: 'evaluator-under-test',
      config: {},
      ledger: TestLedgerClient.create(),
      timeoutMs: DEFAULT_EVALUATION_TIMEOUT_MS,
    });
  }

  /**
   * What `context.config()` returns: a mapping, or YAML text (`'min-length: 20'`), as an
   * evaluator entry would set it.
   */
  withConfig(config: Record<string, unknown> | string): EvaluatorTestKit {
    let values: unknown = config;
    if (typeof config === 'string') {
      try {
        values = parseYaml(config) ?? {};
      } catch (error) {
        throw new TypeError(`EvaluatorTestKit.withConfig: the text is not YAML: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
    if (typeof values !== 'object' || values === null || Array.isArray(values)) {
      throw new TypeError(
        'EvaluatorTestKit.withConfig: expected a mapping of ' +
          'properties (an object, or YAML text such as "min-length: 20")',
      );
    }
    return new EvaluatorTestKit({ ...this.#settings, config: structuredClone(values as Record<string, unknown>) });
  }

  /** The ledger given to `context.ledger` (and to a definition's `create`). Default: an empty one. */
  withLedger(ledger: LedgerClient): EvaluatorTestKit {
    return new EvaluatorTestKit({ ...this.#settings, ledger });
  }

  /** How long one evaluation may take before it fails as timed out. */
  withTimeout(timeoutMs: number): EvaluatorTestKit {
    return new EvaluatorTestKit({ ...this.#settings, timeoutMs });
  }

  /**
   * For a durable evaluator: resume from `progress` (as the ledger keeps it: the next step, its
   * input, the state, completed steps, `firstStartedAt`) instead of starting with `onEvaluation`.
   */
  withProgress(progress: DurableProgress): EvaluatorTestKit {
    const valid =
      typeof progress?.step === 'string' &&
      progress.step !== '' &&
      Number.isInteger(progress.completedSteps) &&
      progress.completedSteps >= 0 &&
      typeof progress.firstStartedAt === 'string' &&
      !Number.isNaN(Date.parse(progress.firstStartedAt));
    if (!valid) {
      throw new TypeError(
        'EvaluatorTestKit.withProgress: expected saved progress { step, input?, state?, completedSteps, ' +
          'firstStartedAt (ISO-8601) }',
      );
    }
    return new EvaluatorTestKit({ ...this.#settings, progress: structuredClone(progress) });
  }

  /**
   * For a durable evaluator that waits for `signal` (`awaitSignal`): the payload it receives, as
   * if sent at once (`withSignal('review', { passed: true, … })`). Without it the wait times out.
   */
  withSignal(signal: string, payload: unknown): EvaluatorTestKit {
    if (typeof signal !== 'string' || signal === '')
      throw new TypeError('EvaluatorTestKit.withSignal: the signal is a non-empty name, such as "review"');
    const signals = { ...this.#settings.signals, [signal]: structuredClone(payload) };
    return new EvaluatorTestKit({ ...this.#settings, signals });
  }

  /**
   * Runs one evaluation of `subject`: `Subject.interaction(…)` (an object without `kind` is an
   * interaction), or `Subject.conversation(…)`. Never rejects: a throw becomes a failed result.
   */
  async evaluate(
    subject: Subject | Omit<InteractionSubject, 'kind'>,
    options: { evaluationId?: string } = {},
  ): Promise<EvaluatorResult> {
    const settings = this.#settings;
    const result = await runEvaluator({
      evaluatorId: settings.evaluatorId,
      makeEvaluator: () => settings.make(settings.ledger),
      subject: 'kind' in subject ? subject : { ...subject, kind: 'interaction' },
      evaluationId: options.evaluationId ?? randomUUID(),
      config: settings.config,
      ledger: settings.ledger,
      timeoutMs: settings.timeoutMs,
      ...(settings.progress ? { progress: settings.progress } : {}),
      ...(settings.signals ? { signals: settings.signals } : {}),
    });
    return new EvaluatorResult(result);
  }
}
