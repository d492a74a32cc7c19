/**
 * The evaluation runtime's parts on their own, over in-memory stand-ins for the ledger: the queue
 * (memory bound, read-back page by page, each evaluation held once, abandoned rows, a failed read
 * retried on the clock), the run scheduler (slots, claims, work taken elsewhere, runs again after
 * an outage wait) and outcome recording (counts, duplicates, the hand-off to telemetry). Each part
 * reports its own counters.
 */
import { describe, expect, it } from 'vitest';
import type { QueuedEvaluation } from '../../../../collector/ledger/store.ts';
import { silentLogger, type Logger } from '../../../../collector/logger.ts';
import type { StepSlot } from '../../../../collector/processor/evaluation/durable-execution.ts';
import { createRunQueue } from '../../../../collector/processor/evaluation/run-queue.ts';
import { UNLIMITED } from '../../../../collector/processor/evaluation/load-governor.ts';
import {
  createOutcomeRecording,
  RETRY_FIRST_MS,
} from '../../../../collector/processor/evaluation/outcome-recording.ts';
import { createRunScheduler, type Claimed } from '../../../../collector/processor/evaluation/run-scheduler.ts';
import type { EvaluationRecord } from '../../../../src/model/records.ts';
import { createManualClock, MANUAL_CLOCK_START } from './helpers/manual-clock.ts';

function queued(seq: number, overrides: Partial<QueuedEvaluation> = {}): QueuedEvaluation {
  return {
    evaluationId: `evaluation-${seq}`,
    interactionId: `interaction-${seq}`,
    evaluatorId: 'e',
    evaluatorVersion: '1',
    agentId: 'support-agent',
    roles: [],
    triggeredAt: '2031-03-01T09:00:00.000Z',
    source: 'interaction',
    attempts: 0,
    seq,
    ...overrides,
  };
}

/** The ledger's queue as rows in seq order; `failNext` makes the next read fail. */
function ledgerQueue(rows: QueuedEvaluation[]) {
  const reads: Array<{ afterSeq: number; limit: number }> = [];
  const ledger = {
    failNext: false,
    reads,
    async loadQueuedEvaluations(options: { afterSeq?: number; limit?: number } = {}) {
      const afterSeq = options.afterSeq ?? 0;
      const limit = options.limit ?? Number.POSITIVE_INFINITY;
      reads.push({ afterSeq, limit });
      if (ledger.failNext) {
        ledger.failNext = false;
        throw new Error('the ledger is gone');
      }
      return rows.filter((row) => (row.seq ?? 0) > afterSeq).slice(0, limit);
    },
  };
  return ledger;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (line) => lines.push(line),
    warn: (line) => lines.push(line),
    error: (line) => lines.push(line),
  };
}

describe('evaluation queue', () => {
  it('holds at most maxInMemory, then reads the rest back from the ledger a page at a time, each once', async () => {
    const rows = [1, 2, 3, 4, 5].map((seq) => queued(seq));
    const ledger = ledgerQueue(rows);
    const queue = createRunQueue({
      store: ledger,
      maxInMemory: 2,
      maxAttempts: 3,
      claimableNow: () => undefined,
      clock: createManualClock(),
      logger: silentLogger,
      onAbandoned: () => {},
      onChange: () => {},
    });
    queue.submit(rows);
    expect(queue.stats()).toEqual({ waiting: 2, overflow: true });
    // Submitted again while held: not taken twice.
    queue.submit(rows.slice(0, 2));
    expect(queue.size()).toBe(2);
    const taken = [queue.next(), queue.next()].map((evaluation) => evaluation?.seq);
    expect(queue.next()).toBeUndefined();
    for (;;) {
      queue.refill();
      await flush();
      const evaluation = queue.next();
      if (!evaluation) break;
      taken.push(evaluation.seq);
    }
    expect(taken).toEqual([1, 2, 3, 4, 5]);
    // Read back in queue order, a page as large as memory has room for.
    expect(ledger.reads).toEqual([
      { afterSeq: 2, limit: 2 },
      { afterSeq: 4, limit: 1 },
      { afterSeq: 5, limit: 1 },
    ]);
    expect(queue.stats()).toEqual({ waiting: 0, overflow: false });
    expect(queue.caughtUp()).toBe(true);
    // Released, an evaluation may be taken again (a rescan finds it still queued).
    queue.release('evaluation-3');
    queue.submit([rows[2]]);
    expect(queue.next()?.seq).toBe(3);
  });

  it('abandons rows whose attempts are used up, and retries a failed read after a second on its clock', async () => {
    const ledger = ledgerQueue([queued(1, { attempts: 3 }), queued(2)]);
    const clock = createManualClock();
    const logger = recordingLogger();
    const abandoned: string[] = [];
    const queue = createRunQueue({
      store: ledger,
      maxInMemory: 10,
      maxAttempts: 3,
      claimableNow: () => undefined,
      clock,
      logger,
      onAbandoned: (evaluation) => abandoned.push(evaluation.evaluationId),
      onChange: () => queue.refill(),
    });
    ledger.failNext = true;
    queue.readFromStart();
    await flush();
    expect(logger.lines).toEqual([expect.stringMatching(/reading the evaluation queue failed: the ledger is gone/)]);
    expect(queue.caughtUp()).toBe(false);
    await clock.advance(999);
    expect(ledger.reads).toHaveLength(1);
    await clock.advance(1);
    await flush();
    expect(ledger.reads).toHaveLength(2);
    expect(abandoned).toEqual(['evaluation-1']);
    expect(queue.next()?.evaluationId).toBe('evaluation-2');
    expect(queue.caughtUp()).toBe(true);
  });
});

describe('run scheduler', () => {
  function scheduler(counts: (evaluation: QueuedEvaluation) => boolean) {
    const clock = createManualClock();
    const queue = createRunQueue({
      store: ledgerQueue([]),
      maxInMemory: 100,
      maxAttempts: 3,
      claimableNow: () => undefined,
      clock,
      logger: silentLogger,
      onAbandoned: () => {},
      onChange: () => {},
    });
    const runs: Array<{ claimed: Claimed; slot: StepSlot; finish(): void }> = [];
    const stop = new AbortController();
    const scheduled = createRunScheduler({
      concurrency: 2,
      governor: UNLIMITED,
      clock,
      logger: silentLogger,
      queue,
      countAttempt: async (evaluation) => counts(evaluation),
      run: (claimed, slot) =>
        new Promise((resolve) => runs.push({ claimed, slot, finish: () => resolve({ stepwise: false }) })),
      signal: stop.signal,
      onChange: () => scheduled.pump(),
    });
    return { queue, scheduler: scheduled, runs, clock, stop };
  }

  it('runs at most `concurrency` at once, claiming ahead, and reports what it claimed, ran and left', async () => {
    const { queue, scheduler: s, runs } = scheduler((evaluation) => evaluation.seq !== 3);
    queue.submit([1, 2, 3, 4, 5].map((seq) => queued(seq)));
    s.pump();
    await flush();
    // Two run; two more are claimed ahead of a free slot (seq 3 was not: another replica holds it).
    expect(runs.map((run) => run.claimed.evaluation.seq)).toEqual([1, 2]);
    expect(s.stats()).toEqual({ claimed: 2, running: 2, started: 2, takenElsewhere: 1 });
    runs[0].finish();
    runs[1].finish();
    await flush();
    await flush();
    expect(runs.map((run) => run.claimed.evaluation.seq)).toEqual([1, 2, 4, 5]);
    expect(s.stats()).toEqual({ claimed: 0, running: 2, started: 4, takenElsewhere: 1 });
  });

  it(
    'runs again after an outage wait without a new claim, unless shutdown began; stops granting slots when ' + 'halted',
    async () => {
      const { queue, scheduler: s, runs, clock, stop } = scheduler(() => true);
      queue.submit([queued(1)]);
      s.pump();
      await flush();
      runs[0].finish();
      await flush();
      await clock.advance(1_000);
      s.rerun(queued(1));
      expect(runs).toHaveLength(2);
      expect(runs[1].claimed.startedAt).toBe(new Date(clock.now()).toISOString());
      // A durable step asks for its slot again; once stopped, the answer is no.
      runs[1].slot.release();
      runs[1].slot.held = false;
      stop.abort();
      const granted = runs[1].slot.acquire();
      s.halt();
      expect(await granted).toBe(false);
      s.stopClaiming();
      s.rerun(queued(1));
      expect(runs).toHaveLength(2);
      expect(s.stats().claimed).toBe(0);
    },
  );
});

describe('outcome recording', () => {
  const outcome = (id: string, type: 'passed' | 'failed' | 'inconclusive'): EvaluationRecord => ({
    evaluationId: id,
    interactionId: `interaction-${id}`,
    evaluatorId: 'e',
    evaluatorVersion: '1',
    agentId: 'support-agent',
    outcome:
      type === 'passed'
        ? { type: 'verdict', evaluation: { passed: true, explanation: 'ok', attributes: {} } }
        : type === 'failed'
          ? { type: 'failed', error: 'it broke', errorType: 'Error' }
          : { type: 'inconclusive', reason: 'nothing to judge' },
    triggeredAt: '2031-03-01T09:00:00.000Z',
    startedAt: '2031-03-01T09:00:00.000Z',
    completedAt: '2031-03-01T09:00:01.000Z',
    attempts: 1,
  });

  it('counts what the ledger kept, hands only that to telemetry, and settles every evaluation', async () => {
    const already = new Set(['dup']);
    const handedOn: string[] = [];
    const settled: string[] = [];
    const logger = recordingLogger();
    const recording = createOutcomeRecording({
      store: {
        async recordEvaluations(records) {
          return records.filter((record) => !already.has(record.evaluationId)).map((record) => record.evaluationId);
        },
      },
      clock: createManualClock(),
      logger,
      onRecorded: (record) => handedOn.push(record.evaluationId),
      onSettled: (evaluationId) => settled.push(evaluationId),
    });
    await Promise.all([
      recording.recordAttempt(outcome('a', 'passed')),
      recording.recordAttempt(outcome('b', 'failed')),
      recording.recordAttempt(outcome('c', 'failed')),
      recording.recordAttempt(outcome('d', 'inconclusive')),
      recording.recordAttempt(outcome('dup', 'passed')),
      recording.recordAbandoned(
        { ...queued(9), attempts: 3 },
        { settings: { controlId: 'QA-1' }, definition: undefined },
      ),
    ]);
    expect(recording.stats()).toEqual({
      recorded: 5,
      verdicts: 1,
      passed: 1,
      inconclusive: 1,
      failed: 3,
      duplicates: 1,
    });
    expect(handedOn.sort()).toEqual(['a', 'b', 'c', 'd', 'evaluation-9']);
    expect(settled.sort()).toEqual(['a', 'b', 'c', 'd', 'dup', 'evaluation-9']);
    // One failure line per evaluator a minute, and one for the abandoned evaluation.
    expect(logger.lines.filter((line) => line.includes('failed: it broke'))).toHaveLength(1);
    expect(logger.lines.filter((line) => line.includes('attempts started and none finished'))).toHaveLength(1);
  });

  /** A recording whose writes fail `failures` times before the ledger takes them. */
  function failingWrites(failures: number, signal?: AbortSignal) {
    const clock = createManualClock();
    const logger = recordingLogger();
    const written: string[] = [];
    const settled: string[] = [];
    let calls = 0;
    const recording = createOutcomeRecording({
      store: {
        async recordEvaluations(records) {
          calls++;
          if (calls <= failures) throw new Error('ledger unreachable');
          written.push(...records.map((record) => record.evaluationId));
          return records.map((record) => record.evaluationId);
        },
      },
      clock,
      logger,
      onSettled: (evaluationId) => settled.push(evaluationId),
      ...(signal ? { signal } : {}),
    });
    return { clock, logger, written, settled, recording, calls: () => calls };
  }

  it('writes an outcome again after a failed write, waiting longer each time, until the ledger takes it', async () => {
    const h = failingWrites(3);
    const done = Promise.all([
      h.recording.recordAttempt(outcome('a', 'passed')),
      h.recording.recordAttempt(outcome('b', 'passed')),
    ]);
    await h.clock.whenTimeout(RETRY_FIRST_MS);
    expect(h.written).toEqual([]);
    expect(h.settled).toEqual([]); // still in the runtime: not read from the ledger again meanwhile
    await h.clock.advanceUntil(done);
    // Three failed writes: at least one outcome waited 1 s, then 2 s.
    expect(h.calls()).toBeGreaterThan(3);
    expect(h.clock.now() - MANUAL_CLOCK_START).toBeGreaterThanOrEqual(3 * RETRY_FIRST_MS);
    expect(h.written.sort()).toEqual(['a', 'b']);
    expect(h.settled.sort()).toEqual(['a', 'b']);
    expect(h.recording.stats()).toMatchObject({ recorded: 2, verdicts: 2 });
    // One line for the failures, not one per evaluation and attempt.
    expect(h.logger.lines).toHaveLength(1);
    expect(h.logger.lines[0]).toMatch(/recording the outcome failed: ledger unreachable \(trying again/);
  });

  it('stops writing again once the collector stops: the evaluation runs at the next start', async () => {
    const stop = new AbortController();
    const h = failingWrites(Number.POSITIVE_INFINITY, stop.signal);
    const done = h.recording.recordAttempt(outcome('a', 'passed'));
    await h.clock.whenTimeout(RETRY_FIRST_MS);
    stop.abort();
    await done;
    expect(h.calls()).toBe(1);
    expect(h.written).toEqual([]);
    expect(h.settled).toEqual(['a']);
    expect(h.recording.stats().recorded).toBe(0);
    expect(h.logger.lines.at(-1)).toMatch(/the collector is stopping; it runs again at the next start/);
  });
});
