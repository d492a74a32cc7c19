/**
 * The evaluation processor across restarts, over a real SQLite ledger file: a shutdown within its
 * grace period, evaluations left queued run once after the restart, attempts that all died with
 * the collector recorded as failed, and interactions recorded before their evaluations were queued.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { defineEvaluator, effects, Evaluation } from '../../../../src/evaluation/index.ts';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../../../../collector/processor/evaluation/runtime-shutdown.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { interaction, processorHarnesses, QUALITY_AND_LENGTH_BINDINGS } from './helpers/processor-harness.ts';
import { createManualClock } from './helpers/manual-clock.ts';
import { recordingEvaluator, type Seen } from './helpers/test-evaluators.ts';

const harness = processorHarnesses();

describe('evaluation processor across restarts', () => {
  it(
    'stops within its grace period with evaluations still ' + 'queued, and runs each of them once after the restart',
    async () => {
      let release = false;
      const ran: string[] = [];
      const stubborn = defineEvaluator({
        id: 'stubborn',
        create: () => ({
          async evaluate(context) {
            ran.push(context.evaluationId);
            while (!release && !context.signal.aborted) await sleep(5);
            return effects.complete(Evaluation.passed('done'));
          },
        }),
      });
      // The default grace period, on a manual clock.
      const clock = createManualClock();
      const h = await harness({
        yaml: `concurrency: 1\nevaluators:\n  stubborn:\n    agents:\n      support-agent: {}\n`,
        evaluators: [stubborn],
        processor: { clock },
      });
      const records = Array.from({ length: 20 }, () => interaction('support-agent'));
      await h.record(records);
      await pollUntil(() => (ran.length > 0 ? true : undefined), { what: 'the first evaluation to start' });
      const t0 = performance.now();
      let stopped = false;
      const stopping = h.processor.shutdown().then(() => (stopped = true));
      // The running evaluation is stuck: shutdown waits out the grace period, then stops it.
      await clock.whenTimeout(DEFAULT_SHUTDOWN_GRACE_MS);
      await clock.advance(DEFAULT_SHUTDOWN_GRACE_MS - 1);
      expect(stopped).toBe(false);
      await clock.advance(1);
      await stopping;
      expect(performance.now() - t0).toBeLessThan(2_000);
      expect(await h.store.countQueuedEvaluations()).toBe(20);
      release = true;
      await h.restart();
      await h.processor.idle();
      const recorded = await Promise.all(records.map((r) => h.store.getEvaluations(r.interactionId)));
      expect(recorded.map((list) => list.length)).toEqual(records.map(() => 1));
    },
  );

  it('runs after a restart the evaluations left queued, and records them once', async () => {
    let blocking = true;
    const attemptsSeen: string[] = [];
    const gated = defineEvaluator({
      id: 'gated',
      create: () => ({
        async evaluate(context) {
          attemptsSeen.push(context.evaluationId);
          if (blocking) await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
          return effects.complete(Evaluation.passed('done'));
        },
      }),
    });
    const clock = createManualClock();
    const h = await harness({
      yaml: `evaluators:\n  gated:\n    agents:\n      support-agent: {}\n`,
      evaluators: [gated],
      processor: { shutdownGraceMs: 20, clock },
    });
    const records = [interaction('support-agent'), interaction('support-agent')];
    await h.record(records);
    while (attemptsSeen.length < 2) await sleep(5);
    blocking = false;
    // Both are blocked: the shutdown before the restart stops them once its grace period has passed.
    const restarting = h.restart();
    await clock.passTimeout(20);
    await restarting;
    await h.processor.idle();
    for (const record of records) {
      const evaluations = await h.store.getEvaluations(record.interactionId);
      expect(evaluations).toHaveLength(1);
      expect(evaluations[0].attempts).toBe(2);
      expect(evaluations[0].outcome.type).toBe('verdict');
    }
    // The same evaluation (same id) ran twice: once stopped by the shutdown, once to the end.
    expect(attemptsSeen).toHaveLength(4);
    expect(new Set(attemptsSeen).size).toBe(2);
  });

  it(
    'records as failed, without running it again, an ' + 'evaluation whose attempts all died with the collector',
    async () => {
      const seen: Seen[] = [];
      const h = await harness({
        yaml: `evaluators:\n  e:\n    control-id: QA-9\n    agents:\n      support-agent: {}\n`,
        evaluators: [recordingEvaluator('e', seen)],
      });
      const record = interaction('support-agent');
      await h.store.putInteractions([record]);
      const [queued] = await h.store.enqueueEvaluations(
        [
          {
            evaluationId: 'poison',
            interactionId: record.interactionId,
            evaluatorId: 'e',
            evaluatorVersion: '1',
            agentId: 'support-agent',
            roles: [],
            triggeredAt: new Date().toISOString(),
            source: 'interaction',
            attempts: 0,
          },
        ],
        { intake: [record.interactionId] },
      );
      for (let i = 0; i < 3; i++)
        await h.store.startEvaluations([{ seq: queued.seq!, startedAt: new Date().toISOString() }]);
      await h.restart();
      await h.processor.idle();
      expect(seen).toEqual([]);
      expect(await h.store.getEvaluations(record.interactionId)).toMatchObject([
        {
          evaluationId: 'poison',
          controlId: 'QA-9',
          attempts: 3,
          outcome: {
            type: 'failed',
            errorType: 'EvaluationAbandonedError',
            error: expect.stringMatching(/3 attempts started and none finished/),
          },
        },
      ]);
    },
  );

  it('takes in, at start, interactions recorded before their evaluations were queued', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: QUALITY_AND_LENGTH_BINDINGS,
      evaluators: [recordingEvaluator('quality', seen), recordingEvaluator('length', seen)],
    });
    const records = [
      interaction('support-agent'),
      interaction('ops-agent'),
      interaction('shop-agent', { roles: ['customer-facing'] }),
    ];
    // The collector died between recording the interactions and queuing their evaluations.
    await h.store.putInteractions(records);
    await h.restart();
    await h.processor.idle();
    expect(seen.map((s) => `${s.evaluatorId}:${s.agentId}`).sort()).toEqual([
      'length:support-agent',
      'quality:shop-agent',
      'quality:support-agent',
    ]);
    expect(await h.store.loadInteractionsAwaitingIntake(10)).toEqual([]);
    await h.restart();
    await h.processor.idle();
    expect(seen).toHaveLength(3);
  });
});
