/**
 * The evaluation processor taking interactions in under pressure, over a real SQLite ledger:
 * beyond what it holds in memory, queued evaluations and backlogs of interactions are read back
 * from the ledger; while the event loop stays saturated, new triggers wait in the ledger.
 */
import { describe, expect, it } from 'vitest';
import { interaction, processorHarnesses } from './helpers/processor-harness.ts';
import { createManualClock } from './helpers/manual-clock.ts';
import { recordingEvaluator, type Seen } from './helpers/test-evaluators.ts';

const harness = processorHarnesses();

describe('evaluation processor', () => {
  it(
    'keeps memory bounded: beyond maxInMemory, queued ' + 'evaluations are read back from the ledger, each run once',
    async () => {
      const seen: Seen[] = [];
      const h = await harness({
        yaml: `concurrency: 2\nevaluators:\n  e:\n    agents:\n      support-agent: {}\n`,
        evaluators: [recordingEvaluator('e', seen, { delayMs: 1 })],
        processor: { maxInMemory: 5 },
      });
      const records = Array.from({ length: 60 }, () => interaction('support-agent'));
      for (let i = 0; i < records.length; i += 10) await h.record(records.slice(i, i + 10));
      await h.processor.idle();
      expect(seen.map((s) => s.interactionId).sort()).toEqual(records.map((r) => r.interactionId).sort());
      expect(h.processor.stats.overflow).toBe(false);
      expect(await h.store.countQueuedEvaluations()).toBe(0);
    },
  );

  it('takes in from the ledger a backlog of interactions larger than it holds in memory, each once', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: `evaluators:\n  e:\n    agents:\n      support-agent: {}\n`,
      evaluators: [recordingEvaluator('e', seen)],
      processor: { maxPendingIntake: 15 },
    });
    const batches = Array.from({ length: 8 }, () => Array.from({ length: 10 }, () => interaction('support-agent')));
    for (const batch of batches) await h.store.putInteractions(batch);
    // Handed over without waiting, as fast as the interactions processor could: most overflow.
    for (const batch of batches) await h.processor.consumeInteractions(batch);
    await h.processor.idle();
    expect(seen.map((s) => s.interactionId).sort()).toEqual(
      batches
        .flat()
        .map((r) => r.interactionId)
        .sort(),
    );
    expect(await h.store.loadInteractionsAwaitingIntake(10)).toEqual([]);
  });
});

describe('evaluation processor under a saturated event loop', () => {
  it(
    'lets the triggers of new interactions wait in the ledger while the loop stays saturated, then takes each ' +
      'in once',
    async () => {
      const seen: Seen[] = [];
      let budget = 200;
      const governor = { tryStart: () => budget > 40, onWindow() {}, budget: () => budget, stop() {} };
      const clock = createManualClock();
      const h = await harness({
        yaml: `evaluators:\n  e:\n    agents:\n      support-agent: {}\n`,
        evaluators: [recordingEvaluator('e', seen)],
        processor: { governor, clock },
      });
      // One busy window (the budget halved once, still high) does not hold intake back.
      const busy = Array.from({ length: 5 }, () => interaction('support-agent'));
      await h.record(busy);
      await h.processor.idle();
      expect(h.processor.stats).toMatchObject({ intakeDeferred: 0, triggered: 5, recorded: 5 });
      // Saturated window after window (the budget at its floor): intake waits.
      budget = 10;
      const batches = Array.from({ length: 3 }, () => Array.from({ length: 5 }, () => interaction('support-agent')));
      for (const batch of batches) await h.record(batch);
      expect(await h.store.countQueuedEvaluations()).toBe(0);
      expect(h.processor.stats.intakeDeferred).toBe(3);
      expect(await h.store.loadInteractionsAwaitingIntake(100)).toHaveLength(15);
      budget = Number.POSITIVE_INFINITY;
      // Intake resumes at its next check of the loop's room.
      await clock.advanceUntil(h.processor.idle());
      expect(seen.map((s) => s.interactionId).sort()).toEqual(
        [...busy, ...batches.flat()].map((r) => r.interactionId).sort(),
      );
      expect(await h.store.loadInteractionsAwaitingIntake(100)).toEqual([]);
      expect(h.processor.stats).toMatchObject({ triggered: 20, recorded: 20 });
    },
  );
});
