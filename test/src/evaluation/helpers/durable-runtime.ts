/**
 * Durable evaluators in the collector's evaluation runtime over a real SQLite ledger: a ledger with
 * one interaction, a runtime with the given evaluators, evaluations queued for it. Each test file
 * calls `afterEach(runCleanups)`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createSqliteStore, type SqliteLedgerStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import type { LedgerStore, QueuedEvaluation } from '../../../../collector/ledger/store.ts';
import { silentLogger } from '../../../../collector/logger.ts';
import {
  createEvaluationRuntime,
  type EvaluationRuntime,
} from '../../../../collector/processor/evaluation/evaluation-runtime.ts';
import { createEvaluatorRegistry } from '../../../../collector/processor/evaluation/evaluator-registry.ts';
import type { EvaluationRecord, EvaluatorDefinition } from '../../../../src/evaluation/index.ts';
import { testInteractionRecord } from '../../../../src/testing/index.ts';

export const cleanups: Array<() => Promise<void> | void> = [];

/** Shuts down what the test started, last first. */
export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** A promise the test resolves: what a step or a store write waits on. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let reached!: () => void;
  const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
  return { open, opened, reached, wasReached: reachedPromise };
}

export interface Ledger {
  dir: string;
  store: SqliteLedgerStore;
  interactionId: string;
  agentId: string;
}

export async function openLedger(dir = mkdtempSync(join(tmpdir(), 'evalon-durable-'))): Promise<Ledger> {
  const store = createSqliteStore({ path: join(dir, 'ledger.db') });
  const record = testInteractionRecord({
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
  });
  await store.putInteractions([{ ...record, interactionId: `${record.traceId}-${record.spanId}` }]);
  return { dir, store, interactionId: `${record.traceId}-${record.spanId}`, agentId: record.agentId };
}

export interface Runtime {
  runtime: EvaluationRuntime;
  recorded: EvaluationRecord[];
}

export async function startRuntime(
  ledger: Ledger,
  evaluators: EvaluatorDefinition[],
  options: {
    config?: () => Record<string, unknown>;
    concurrency?: number;
    store?: LedgerStore;
    shutdownGraceMs?: number;
  } = {},
): Promise<Runtime> {
  const recorded: EvaluationRecord[] = [];
  const runtime = createEvaluationRuntime({
    store: options.store ?? ledger.store,
    registry: createEvaluatorRegistry(evaluators.map((definition) => ({ definition, origin: 'test' }))),
    resolve: () => ({ config: options.config?.() ?? {} }),
    concurrency: options.concurrency ?? 2,
    logger: silentLogger,
    onRecorded: (record) => recorded.push(record),
    shutdownGraceMs: options.shutdownGraceMs ?? 0,
  });
  await runtime.start();
  return { runtime, recorded };
}

export async function queue(
  ledger: Ledger,
  runtime: EvaluationRuntime | undefined,
  evaluatorId: string,
): Promise<QueuedEvaluation> {
  const [queued] = await ledger.store.enqueueEvaluations([
    {
      evaluationId: randomUUID(),
      interactionId: ledger.interactionId,
      evaluatorId,
      evaluatorVersion: '1',
      agentId: ledger.agentId,
      roles: [],
      triggeredAt: new Date().toISOString(),
      source: 'interaction',
      attempts: 0,
    },
  ]);
  runtime?.submit([queued]);
  return queued;
}

export async function withLedger(): Promise<Ledger> {
  const ledger = await openLedger();
  cleanups.push(async () => {
    await ledger.store.close();
    rmSync(ledger.dir, { recursive: true, force: true });
  });
  return ledger;
}

export async function run(
  ledger: Ledger,
  evaluators: EvaluatorDefinition[],
  evaluatorId = evaluators[0].id,
  options: Parameters<typeof startRuntime>[2] = {},
) {
  const { runtime, recorded } = await startRuntime(ledger, evaluators, options);
  cleanups.push(() => runtime.shutdown());
  await queue(ledger, runtime, evaluatorId);
  await runtime.idle();
  expect(recorded).toHaveLength(1);
  expect(await ledger.store.countQueuedEvaluations()).toBe(0);
  return recorded[0];
}

export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 1_000; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached');
}
