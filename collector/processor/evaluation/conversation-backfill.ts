/**
 * `evalon backfill --conversations`: evaluate the stored conversations that are over with one
 * evaluator, exactly once per revision and evaluator version. Closed revisions are read in the
 * order they closed; each one the evaluator's binding triggers now (`trigger: conversation`,
 * enabled, trigger-on-failure, sampling by the conversation's key, loop safety — the live rules)
 * is queued under the version unless that version already has an outcome for it (the ledger's
 * unique key), and run by a runtime of its own. Run again, it resumes where it stopped.
 */
import { BackfillError, type BackfillOptions, type BackfillProgress } from './backfill.ts';
import { isoTime, sleep, systemClock } from './clock.ts';
import { conversationEvaluations } from './conversation-intake.ts';
import { createEvaluationRuntime } from './evaluation-runtime.ts';
import { createRunSettings } from './run-settings.ts';
import { createBindingTable } from './triggers.ts';

const PAGE = 500;
/** Queued evaluations waiting in memory before reading more revisions. */
const MAX_WAITING = 2_000;

export async function runConversationBackfill(options: BackfillOptions): Promise<BackfillProgress> {
  const { store, config, registry, evaluatorId, logger } = options;
  const definition = registry.get(evaluatorId);
  if (!definition)
    throw new BackfillError(`evaluator "${evaluatorId}" is not defined (known: ${registry.ids().join(', ')})`);
  if (!definition.subjects.includes('conversation')) {
    throw new BackfillError(
      `evaluator "${evaluatorId}" cannot judge conversations (it judges ${definition.subjects.join(' and ')}s; ` +
        'backfill it without --conversations)',
    );
  }
  const entry = config.evaluators[evaluatorId];
  if (!entry)
    throw new BackfillError(
      `evaluator "${evaluatorId}" has no entry under processors::evaluation::evaluators, so it is bound to no agent ` +
        '(add one with trigger: conversation, then backfill)',
    );
  const version = options.version ?? entry.version ?? definition.version;
  const clock = options.clock ?? systemClock;
  const runtime = createEvaluationRuntime({
    clock,
    store,
    registry,
    concurrency: config.concurrency,
    logger,
    resolve: createRunSettings(config.evaluators, config.defaults),
    accept: (evaluation) =>
      evaluation.source === 'backfill' &&
      evaluation.subject?.kind === 'conversation' &&
      evaluation.evaluatorId === evaluatorId &&
      evaluation.evaluatorVersion === version,
  });
  const bindings = createBindingTable({ [evaluatorId]: entry }, config.defaults);
  const query = {
    ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
    ...(options.since !== undefined ? { since: options.since } : {}),
  };
  const progress: BackfillProgress = {
    total: await store.countConversationRevisions(query),
    scanned: 0,
    notTriggered: 0,
    alreadyRecorded: 0,
    queued: 0,
    runtime: runtime.stats,
  };
  const report = () => options.onProgress?.({ ...progress, runtime: { ...runtime.stats } });
  const ticker = clock.setInterval(report, 200);
  const counters = { insideEvaluation: 0, notSampled: 0, failedNotTriggered: 0 };
  try {
    await runtime.start();
    let cursor: string | undefined;
    do {
      while (runtime.stats.waiting > MAX_WAITING) await sleep(clock, 20);
      const page = await store.pageConversationRevisions({
        ...query,
        limit: PAGE,
        ...(cursor !== undefined ? { cursor } : {}),
      });
      cursor = page.nextCursor;
      const candidates = await conversationEvaluations(page.revisions, {
        bindings,
        registry,
        triggeredAt: isoTime(clock.now()),
        lookup: (id) => store.getInteraction(id),
        counters,
        source: 'backfill',
        evaluatorId,
        version,
      });
      progress.scanned += page.revisions.length;
      progress.notTriggered += page.revisions.length - candidates.length;
      const queued = await store.enqueueEvaluations(candidates);
      progress.queued += queued.length;
      progress.alreadyRecorded += candidates.length - queued.length;
      runtime.submit(queued);
      report();
    } while (cursor !== undefined);
    await runtime.idle();
  } finally {
    ticker.cancel();
    await runtime.shutdown();
  }
  report();
  return { ...progress, runtime: { ...runtime.stats } };
}
