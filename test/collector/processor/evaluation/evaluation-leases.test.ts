/**
 * Replicas sharing one evaluation queue through leases, in the runtime: two runtimes (two owners)
 * on one ledger run every evaluation exactly once between them; work leased by an owner that died
 * is started by another once the lease expires; a runtime that stops releases its leases so
 * another can start that work at once; leases of long evaluations are renewed while they run.
 * Lease expiry and renewal run on a manual clock: time passes when the test says so.
 * The store contract suite checks the stores' side of leases on SQLite and PostgreSQL alike.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createSqliteStore, type SqliteLedgerStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import type { QueuedEvaluation } from '../../../../collector/ledger/store.ts';
import { silentLogger } from '../../../../collector/logger.ts';
import { createEvaluationRuntime } from '../../../../collector/processor/evaluation/evaluation-runtime.ts';
import { createEvaluatorRegistry } from '../../../../collector/processor/evaluation/evaluator-registry.ts';
import type { Clock } from '../../../../collector/processor/evaluation/clock.ts';
import {
  defineEvaluator,
  effects,
  Evaluation,
  type EvaluationRecord,
  type EvaluatorDefinition,
} from '../../../../src/evaluation/index.ts';
import { testInteractionRecord } from '../../../../src/testing/index.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createManualClock } from './helpers/manual-clock.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openLedger(interactions: number): Promise<{ store: SqliteLedgerStore; interactionIds: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-leases-'));
  const store = createSqliteStore({ path: join(dir, 'ledger.db') });
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const interactionIds: string[] = [];
  for (let i = 0; i < interactions; i++) {
    const record = testInteractionRecord({
      traceId: randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
    });
    const interactionId = `${record.traceId}-${record.spanId}`;
    await store.putInteractions([{ ...record, interactionId }]);
    interactionIds.push(interactionId);
  }
  return { store, interactionIds };
}

function startRuntime(
  store: SqliteLedgerStore,
  owner: string,
  evaluators: EvaluatorDefinition[],
  lease = { durationMs: 30_000, rescanMs: 50 },
  clock?: Clock,
) {
  const recorded: EvaluationRecord[] = [];
  const runtime = createEvaluationRuntime({
    store,
    registry: createEvaluatorRegistry(evaluators.map((definition) => ({ definition, origin: 'test' }))),
    resolve: () => ({ config: {} }),
    concurrency: 4,
    logger: silentLogger,
    onRecorded: (record) => recorded.push(record),
    shutdownGraceMs: 0,
    lease: { owner, ...lease },
    ...(clock ? { clock } : {}),
  });
  cleanups.push(() => runtime.shutdown());
  return { runtime, recorded };
}

function evaluationsFor(interactionIds: string[], evaluatorId: string): QueuedEvaluation[] {
  return interactionIds.map((interactionId) => ({
    evaluationId: randomUUID(),
    interactionId,
    evaluatorId,
    evaluatorVersion: '1',
    agentId: 'support-agent',
    roles: [],
    triggeredAt: new Date().toISOString(),
    source: 'interaction',
    attempts: 0,
  }));
}

/** Counts runs per evaluation id; optionally waits on a gate before answering. */
function countingEvaluator(id: string, runs: Map<string, number>, gate?: Promise<void>): EvaluatorDefinition {
  return defineEvaluator({
    id,
    create: () => ({
      async evaluate(context) {
        runs.set(context.evaluationId, (runs.get(context.evaluationId) ?? 0) + 1);
        if (gate) await gate;
        return effects.complete(Evaluation.passed('ok'));
      },
    }),
  });
}

it('two runtimes sharing the queue run every evaluation once between them', async () => {
  const { store, interactionIds } = await openLedger(120);
  const runs = new Map<string, number>();
  const evaluator = countingEvaluator('counted', runs);
  const a = startRuntime(store, 'replica-a', [evaluator]);
  const b = startRuntime(store, 'replica-b', [evaluator]);
  await a.runtime.start();
  await b.runtime.start();
  const queued = await store.enqueueEvaluations(evaluationsFor(interactionIds, 'counted'));
  // Each replica is handed all of them (as if both had triggered them), from opposite ends: leases
  // decide who runs what.
  a.runtime.submit(queued);
  b.runtime.submit([...queued].reverse());
  await pollUntil(async () => ((await store.countQueuedEvaluations()) === 0 ? true : undefined));
  await Promise.all([a.runtime.idle(), b.runtime.idle()]);
  expect(a.recorded.length + b.recorded.length).toBe(queued.length);
  expect([...runs.values()].every((n) => n === 1)).toBe(true);
  expect(runs.size).toBe(queued.length);
  expect(a.runtime.stats.duplicates + b.runtime.stats.duplicates).toBe(0);
  // Both did work.
  expect(a.recorded.length).toBeGreaterThan(0);
  expect(b.recorded.length).toBeGreaterThan(0);
});

it('starts work leased by an owner that died once its lease expires, counting the dead attempt', async () => {
  const clock = createManualClock();
  const { store, interactionIds } = await openLedger(3);
  const queued = await store.enqueueEvaluations(evaluationsFor(interactionIds, 'counted'));
  // A replica started them and died: its leases run for another 300 ms and are never renewed.
  const diedAt = clock.now();
  expect(
    await store.startEvaluations(
      queued.map((q) => ({ seq: q.seq!, startedAt: new Date(diedAt).toISOString() })),
      { owner: 'dead-replica', until: new Date(diedAt + 300).toISOString() },
    ),
  ).toHaveLength(3);
  const runs = new Map<string, number>();
  const survivor = startRuntime(
    store,
    'replica-b',
    [countingEvaluator('counted', runs)],
    { durationMs: 5_000, rescanMs: 20 },
    clock,
  );
  await survivor.runtime.start();
  // Rescans until just before the lease runs out leave the work alone.
  await clock.advance(299);
  await survivor.runtime.idle();
  expect(runs.size).toBe(0);
  expect(survivor.recorded).toEqual([]);
  await clock.advance(21);
  await pollUntil(() => (survivor.recorded.length === 3 ? true : undefined), { timeoutMs: 10_000 });
  // Not before the dead owner's lease ran out.
  for (const record of survivor.recorded) {
    expect(Date.parse(record.startedAt)).toBeGreaterThanOrEqual(diedAt + 300);
    expect(record.attempts).toBe(2);
  }
  expect(await store.countQueuedEvaluations()).toBe(0);
});

it('a runtime that stops releases its leases, so another starts that work at once', async () => {
  const { store, interactionIds } = await openLedger(2);
  const runs = new Map<string, number>();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const first = startRuntime(store, 'replica-a', [countingEvaluator('counted', runs, gate)], {
    durationMs: 600_000,
    rescanMs: 600_000,
  });
  await first.runtime.start();
  const queued = await store.enqueueEvaluations(evaluationsFor(interactionIds, 'counted'));
  first.runtime.submit(queued);
  await pollUntil(() => (runs.size === 2 ? true : undefined));
  await first.runtime.shutdown();
  open();
  expect(first.recorded).toEqual([]);
  // The leases would last 10 minutes; released, they are free now.
  const second = startRuntime(store, 'replica-b', [countingEvaluator('counted', runs)], {
    durationMs: 600_000,
    rescanMs: 600_000,
  });
  await second.runtime.start();
  await pollUntil(() => (second.recorded.length === 2 ? true : undefined), { timeoutMs: 10_000 });
  expect(await store.countQueuedEvaluations()).toBe(0);
});

it('renews the leases of evaluations that run longer than a lease, so no other owner starts them', async () => {
  const { store, interactionIds } = await openLedger(1);
  const runs = new Map<string, number>();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const clock = createManualClock();
  const slow = startRuntime(
    store,
    'replica-a',
    [countingEvaluator('counted', runs, gate)],
    { durationMs: 900, rescanMs: 100 },
    clock,
  );
  await slow.runtime.start();
  const [queued] = await store.enqueueEvaluations(evaluationsFor(interactionIds, 'counted'));
  slow.runtime.submit([queued]);
  await pollUntil(() => (runs.size === 1 ? true : undefined));
  // Well past several lease durations, the lease is still held: another owner cannot start it.
  for (let i = 0; i < 4; i++) {
    await clock.advance(400);
    expect(
      await store.startEvaluations([{ seq: queued.seq!, startedAt: new Date(clock.now()).toISOString() }], {
        owner: 'replica-b',
        until: new Date(clock.now() + 1000).toISOString(),
      }),
    ).toEqual([]);
  }
  open();
  await pollUntil(() => (slow.recorded.length === 1 ? true : undefined));
  expect(slow.recorded[0].attempts).toBe(1);
  expect(slow.runtime.stats.leasesLost).toBe(0);
});
