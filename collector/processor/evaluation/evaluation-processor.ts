/**
 * The evaluation processor: the `processors.evaluation` stage. The interactions processor hands
 * it the interactions new to the ledger (`consumeInteractions`); it decides which evaluations
 * each one triggers (bindings, loop safety, trigger-on-failure, sampling), queues them durably in
 * the ledger, and submits them to the runtime, which runs them in the background. Ingest waits
 * only for the queue write, never for an evaluation.
 *
 * Nothing is lost between recording an interaction and queuing its evaluations: queuing marks the
 * interactions taken in, in the same transaction, and at start (or after a failed queue write)
 * the processor first takes in what the ledger recorded after the last mark. So ingest does not
 * even wait for the queue write: `consumeInteractions` hands the records to the processor's own
 * intake (one batch at a time, in order) and returns. A backlog beyond MAX_PENDING_INTAKE
 * records is dropped from memory and taken in from the ledger instead.
 *
 * Conversations that are over come the same way (`consumeConversations`, from the interactions
 * processor's conversation tracker): their revisions trigger the bindings with `trigger:
 * conversation`, the queue write marks them taken in, and a revision closed but not taken in (a
 * collector that stopped in between, another replica that died) is caught up from the ledger at
 * start and every CONVERSATION_CATCH_UP_MS.
 */
import type { TracerProvider } from '@opentelemetry/api';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import type { EvaluationProcessorConfig } from '../../config/evalon-config.ts';
import type { ConversationRevision, ConversationStore } from '../../ledger/conversation-store.ts';
import type { EvaluationWaits } from '../../ledger/evaluation-waits.ts';
import type { EvaluationQueue, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { InteractionStore } from '../../ledger/interaction-store.ts';
import type { RecordedEvaluations } from '../../ledger/recorded-evaluations.ts';
import type { Logger } from '../../logger.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import type { Lifecycle } from '../../pipeline/consumer.ts';
import type { InteractionsConsumer } from '../interactions/interactions-processor.ts';
import { holdRecords } from '../interactions/lazy-record.ts';
import { clockFrom, sleep, type Clock, type Timer } from './clock.ts';
import { conversationEvaluations } from './conversation-intake.ts';
import { createEvaluationRuntime, type EvaluationRuntime, type RuntimeStats } from './evaluation-runtime.ts';
import type { EvaluatorRegistry } from './evaluator-registry.ts';
import { isInsideEvaluation } from './loop-safety.ts';
import { createStoreLedgerClient } from './store-ledger-client.ts';
import { createLoadGovernor, type LoadGovernor } from './load-governor.ts';
import { createAgreementTracker, type AgreementTracker } from './agreement.ts';
import { createRoutingTable } from './routing.ts';
import { createRunSettings } from './run-settings.ts';
import type { SkippedEvaluation } from './budget-skips.ts';
import { createEvaluationBudgets } from './evaluation-budgets.ts';
import { createBindingTable, queuedEvaluation, triggerVerdict, type BindingTable } from './triggers.ts';
import type { ReviewStore } from '../../ledger/review-store.ts';

/** Interactions (or conversation revisions) read per page when catching up on what was not taken in. */
const CATCH_UP_PAGE = 500;
/**
 * How often revisions closed but not taken in are looked for (an indexed query): what another
 * replica closed before it died. Revisions this collector closes are handed over at once.
 */
export const CONVERSATION_CATCH_UP_MS = 10_000;
/** After a failed queue write, catching up is retried this soon even if no interaction arrives. */
const CATCH_UP_RETRY_MS = 1_000;
/** Interaction records waiting for intake in memory, at most; beyond, intake reads the ledger. */
const MAX_PENDING_INTAKE = 20_000;
/** While intake waits for a saturated event loop, how often it checks for room. */
const RESUME_CHECK_MS = 250;
/**
 * Intake waits while the governor allows at most this many evaluation starts per window: a loop
 * saturated for several windows in a row (the budget halves each saturated window), not one busy
 * window, which would only turn a steady flow of triggers into bursts.
 */
const DEFER_INTAKE_AT_BUDGET = 40;
/** It resumes once the budget has doubled back past this (hysteresis: no flapping). */
const RESUME_INTAKE_AT_BUDGET = 160;

export interface EvaluationProcessorStats extends RuntimeStats {
  /** Evaluations queued because an interaction triggered them. */
  triggered: number;
  /** Interactions not evaluated because they happened inside an evaluation. */
  insideEvaluation: number;
  /** Bindings that applied but whose sampling left the interaction out. */
  notSampled: number;
  /** Failed interactions left out by bindings without trigger-on-failure. */
  failedNotTriggered: number;
  /** Batches of new interactions whose intake waited for the saturated event loop (caught up from the ledger). */
  intakeDeferred: number;
  /** Conversation revisions taken in (each once, whether it triggered anything or not). */
  conversationsTakenIn: number;
}

export interface EvaluationProcessor extends InteractionsConsumer, Lifecycle {
  consumeConversations(revisions: ConversationRevision[]): Promise<void>;
  readonly stats: EvaluationProcessorStats;
  readonly runtime: EvaluationRuntime;
  /** Agreement between the entries `agreement` pairs, kept as outcomes are recorded. */
  readonly agreement: AgreementTracker;
  /** Resolves when every queued evaluation has been recorded (tests, backfill). */
  idle(): Promise<void>;
}

export interface EvaluationProcessorOptions {
  store: EvaluationQueue &
    EvaluationWaits &
    InteractionStore &
    RecordedEvaluations &
    ConversationStore &
    Partial<ReviewStore>;
  config: Pick<EvaluationProcessorConfig, 'concurrency' | 'defaults' | 'evaluators'> &
    Partial<Pick<EvaluationProcessorConfig, 'modelUnavailableRetryForMs' | 'agreement'>>;
  registry: EvaluatorRegistry;
  /**
   * Time and timers of the processor and its runtime, created once (default: the system clock).
   * A function is taken as the time of day, with real timers.
   */
  clock?: Clock | (() => number);
  logger: Logger;
  onRecorded?(record: EvaluationRecord): void;
  /** Called with each evaluation not started because its token budget was spent. */
  onSkipped?(skip: SkippedEvaluation): void;
  /**
   * Where LLM judges' model calls become `chat <model>` spans under their evaluation's span: the
   * telemetry exporters' `tracerProvider` (default: none, the calls are not traced).
   */
  tracerProvider?: TracerProvider;
  /** Start fewer evaluations while the event loop is saturated, so ingest keeps its pace (default true). */
  yieldToIngest?: boolean;
  /** The governor that tells when the loop is saturated (default: one measuring this event loop; tests inject one). */
  governor?: LoadGovernor;
  /** Knobs (tests): interaction records waiting for intake in memory, and the runtime's bounds. */
  maxPendingIntake?: number;
  maxInMemory?: number;
  maxAttempts?: number;
  shutdownGraceMs?: number;
  /** Wait before running an evaluation again after a model outage (tests shorten it). */
  unavailableBackoff?: { baseMs: number; maxMs: number };
  /** How often the ledger is read for signal waits that are due (default 1 s). */
  duePollMs?: number;
  /** Evaluation leases, when replicas share the ledger (see `EvaluationRuntimeOptions.lease`). */
  lease?: { owner: string; durationMs: number; rescanMs?: number };
}

export function createEvaluationProcessor(options: EvaluationProcessorOptions): EvaluationProcessor {
  const { store, config, registry, logger } = options;
  const clock = clockFrom(options.clock);
  const bindings: BindingTable = createBindingTable(config.evaluators, config.defaults);
  const routing = createRoutingTable({ bindings, registry, evaluators: config.evaluators });
  const agreement = createAgreementTracker({
    pairs: config.agreement ?? [],
    store,
    routed: routing.routedEntries(),
    logger,
  });
  const ledger = createStoreLedgerClient(store);
  const governor = options.yieldToIngest === false ? undefined : (options.governor ?? createLoadGovernor({ clock }));
  const budgets = createEvaluationBudgets({ evaluators: config.evaluators, defaults: config.defaults, clock, logger });
  const runtime = createEvaluationRuntime({
    store,
    ledger,
    ...(governor ? { governor } : {}),
    registry,
    concurrency: config.concurrency,
    ...(config.modelUnavailableRetryForMs !== undefined
      ? { unavailableRetryForMs: config.modelUnavailableRetryForMs }
      : {}),
    ...(options.unavailableBackoff ? { unavailableBackoff: options.unavailableBackoff } : {}),
    ...(options.lease ? { lease: options.lease } : {}),
    clock,
    logger,
    resolve: createRunSettings(config.evaluators, config.defaults),
    onRecorded(record) {
      agreement.observe(record);
      options.onRecorded?.(record);
    },
    ...(budgets ? { budgets } : {}),
    ...(options.onSkipped ? { onSkipped: options.onSkipped } : {}),
    ...(options.tracerProvider ? { tracerProvider: options.tracerProvider } : {}),
    // Review evaluations open their reviews in the ledger's review queue.
    ...(store.openReview ? { reviews: { openReview: store.openReview.bind(store) } } : {}),
    followUps: (record, evaluation) => routing.followUps(record, evaluation, new Date(clock.now()).toISOString()),
    ...(options.duePollMs !== undefined ? { duePollMs: options.duePollMs } : {}),
    ...(options.maxInMemory !== undefined ? { maxInMemory: options.maxInMemory } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.shutdownGraceMs !== undefined ? { shutdownGraceMs: options.shutdownGraceMs } : {}),
  });
  const counters = {
    triggered: 0,
    insideEvaluation: 0,
    notSampled: 0,
    failedNotTriggered: 0,
    conversationsTakenIn: 0,
  };
  let catchUpNeeded = true;
  let started = false;
  let stopped = false;
  let retry: Timer | undefined;
  /** Intake runs one batch at a time, in the order the interactions were recorded. */
  let serial: Promise<void> = Promise.resolve();
  let pendingIntake = 0;
  /** A catch-up is in the chain and has not started yet (one started may have read too early). */
  let catchUpQueued = false;
  /** While the event loop is saturated, intake waits (the records are in the ledger); this checks when to resume. */
  let resumeCheck: Timer | undefined;
  let deferredIntakes = 0;
  let conversationSweep: Timer | undefined;
  /** A conversation sweep is in the chain and has not started yet. */
  let sweepQueued = false;

  async function intake(records: InteractionRecord[]): Promise<void> {
    const triggeredAt = new Date(clock.now()).toISOString();
    const batch = new Map(records.map((record) => [record.interactionId, record]));
    const lookup = async (id: string) => batch.get(id) ?? (await store.getInteraction(id));
    const evaluations: QueuedEvaluation[] = [];
    for (const record of records) {
      if (await isInsideEvaluation(record, lookup)) {
        counters.insideEvaluation++;
        continue;
      }
      for (const binding of bindings.resolve({ agentId: record.agentId, roles: record.roles ?? [] })) {
        const verdict = triggerVerdict(record, binding);
        if (verdict === 'other-trigger') continue;
        if (verdict === 'not-sampled') counters.notSampled++;
        else if (verdict === 'failed-interaction') counters.failedNotTriggered++;
        if (verdict !== 'triggered') continue;
        const definition = registry.get(binding.evaluatorId);
        if (!definition) continue; // startup checks every configured entry's type; nothing to run
        // The entry's own version, else the evaluator's: a new version is a new evaluation, never an overwrite.
        const version = binding.version ?? definition.version;
        evaluations.push(queuedEvaluation(record, binding.evaluatorId, version, triggeredAt, 'interaction'));
      }
    }
    const queued = await store.enqueueEvaluations(evaluations, {
      intake: records.map((record) => record.interactionId),
    });
    counters.triggered += queued.length;
    if (queued.length > 0) {
      const evaluated = new Set(queued.map((q) => q.interactionId));
      ledger.remember(records.filter((record) => evaluated.has(record.interactionId)));
    }
    runtime.submit(queued);
  }

  /** Queues the evaluations conversation revisions trigger, marking them taken in with the same write. */
  async function intakeConversations(revisions: ConversationRevision[]): Promise<void> {
    const triggeredAt = new Date(clock.now()).toISOString();
    const evaluations = await conversationEvaluations(revisions, {
      bindings,
      registry,
      triggeredAt,
      lookup: (id) => ledger.findInteraction(id),
      counters,
    });
    const queued = await store.enqueueEvaluations(evaluations, { conversationIntake: revisions });
    counters.triggered += queued.length;
    counters.conversationsTakenIn += revisions.length;
    runtime.submit(queued);
  }

  async function catchUp(): Promise<void> {
    let total = 0;
    for (;;) {
      const page = await store.loadInteractionsAwaitingIntake(CATCH_UP_PAGE);
      if (page.length === 0) break;
      await intake(page);
      total += page.length;
    }
    catchUpNeeded = false;
    if (total > 0)
      logger.info(`evaluation: took in ${total} recorded interactions whose evaluations had not been queued`);
    await catchUpConversations();
  }

  async function catchUpConversations(): Promise<void> {
    let total = 0;
    for (;;) {
      const page = await store.loadConversationsAwaitingIntake(CATCH_UP_PAGE);
      if (page.length === 0) break;
      await intakeConversations(page);
      total += page.length;
    }
    if (total > 0) logger.info(`evaluation: took in ${total} conversations that were over and not yet evaluated`);
  }

  /**
   * Takes `records` in, or catches up from the ledger. Every batch goes through one chain, in the
   * order the interactions were recorded, and records not taken in directly always have a catch-up
   * ahead of any later batch: the intake mark is a high-water mark, so a later batch must never be
   * taken in before an earlier one.
   */
  function take(records: InteractionRecord[] | 'catch-up' | 'conversation-sweep'): Promise<void> {
    serial = serial.then(async () => {
      if (records === 'catch-up') catchUpQueued = false;
      if (records === 'conversation-sweep') sweepQueued = false;
      if (stopped) return;
      try {
        if (catchUpNeeded || records === 'catch-up') await catchUp();
        else if (records === 'conversation-sweep') await catchUpConversations();
        else await intake(records);
      } catch (error) {
        // The interactions are recorded: catching up from the ledger takes them in later.
        catchUpNeeded = true;
        logger.error(
          'evaluation: queuing evaluations failed: ' +
            `${error instanceof Error ? error.message : String(error)} (retrying)`,
        );
        retry?.cancel();
        retry = clock.setTimeout(queueCatchUp, CATCH_UP_RETRY_MS, { background: true });
      }
    });
    return serial;
  }

  /**
   * Ingest first: while the load governor holds evaluation starts low (the event loop has been
   * saturated for several windows), queuing the triggers of new interactions waits too — they are
   * in the ledger, after the intake mark — and the processor catches up from the ledger once the
   * loop has room again.
   */
  function deferIntake(): void {
    catchUpNeeded = true;
    deferredIntakes++;
    resumeCheck ??= clock.setInterval(() => {
      if (stopped || (governor && governor.budget() < RESUME_INTAKE_AT_BUDGET)) return;
      resumeCheck?.cancel();
      resumeCheck = undefined;
      queueCatchUp();
    }, RESUME_CHECK_MS);
  }

  /** Queues a sweep of the revisions awaiting intake, unless one is queued and has not started. */
  function queueConversationSweep(): void {
    if (sweepQueued || stopped) return;
    sweepQueued = true;
    void take('conversation-sweep');
  }

  function queueCatchUp(): void {
    catchUpNeeded = true;
    if (catchUpQueued || stopped) return;
    catchUpQueued = true;
    void take('catch-up');
  }

  return {
    get stats(): EvaluationProcessorStats {
      return { ...runtime.stats, ...counters, intakeDeferred: deferredIntakes };
    },
    runtime,
    agreement,
    async consumeConversations() {
      if (!started) throw new Error('evaluation: consumeConversations called before start');
      if (stopped) return;
      // Every revision awaiting intake is read back from the ledger: those just closed, and those a
      // recorded turn closed as it opened the next revision. Few (a conversation ends far less often
      // than an interaction), and one sweep at a time takes them all.
      queueConversationSweep();
    },
    async consumeInteractions(records) {
      if (!started) throw new Error('evaluation: consumeInteractions called before start');
      if (records.length === 0 || stopped) return;
      if (governor && governor.budget() <= DEFER_INTAKE_AT_BUDGET) {
        deferIntake();
        return;
      }
      if (pendingIntake + records.length > (options.maxPendingIntake ?? MAX_PENDING_INTAKE)) {
        // The records are in the ledger: drop them here and catch up from the intake mark.
        queueCatchUp();
        return;
      }
      pendingIntake += records.length;
      // Read after this returns: their content stays until the intake is done with them (the
      // records it queues evaluations of are parsed then, as the ledger client keeps them).
      const content = holdRecords(records);
      void take(records).finally(() => {
        pendingIntake -= records.length;
        content.release();
      });
    },
    async start() {
      if (started) return;
      await agreement.start();
      await runtime.start();
      await catchUp();
      started = true;
      conversationSweep = clock.setInterval(queueConversationSweep, CONVERSATION_CATCH_UP_MS);
    },
    /** Resolves once everything handed over is queued and every queued evaluation recorded. */
    idle: async () => {
      // Intake waiting for a saturated event loop resumes (and catches up) before anything is idle.
      while (resumeCheck && !stopped) await sleep(clock, RESUME_CHECK_MS);
      await serial;
      await runtime.idle();
      await agreement.idle();
    },
    async shutdown() {
      stopped = true;
      conversationSweep?.cancel();
      retry?.cancel();
      resumeCheck?.cancel();
      await serial;
      await runtime.shutdown();
    },
  };
}
