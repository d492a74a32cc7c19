/**
 * What the prune crash tests share (both stores): a large ledger to prune (old interactions with
 * late spans and evaluations, old conversations, interactions in use, young ones), a pruner child
 * process killed with SIGKILL half way, and the check that every unit is whole or wholly gone.
 */
import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import type { LedgerStore } from '../../../../collector/ledger/store.ts';
import type { RetentionPolicy } from '../../../../collector/retention/config.ts';
import { EVALON_CONVERSATION_ENDED } from '../../../../src/model/attributes.ts';
import type { EvaluationRecord, InteractionRecord } from '../../../../src/model/records.ts';
import { TEST_NODE_FLAGS } from '../../../helpers/test-node-flags.ts';
import { makeRecord, plainSpan } from '../../../helpers/ledger-fixtures.ts';
import { ledgerInconsistencies, type SqlReader } from './ledger-consistency.ts';

const DAY = 86_400_000;
export const CRASH_NOW = Date.parse('2026-04-10T00:00:00.000Z');
export const CRASH_POLICY: RetentionPolicy = { maxAgeMs: 30 * DAY, keepEvaluationsMs: 90 * DAY };
const CHILD = new URL('./prune-crash-child.ts', import.meta.url).pathname;

export interface CrashLedger {
  old: InteractionRecord[];
  /** Old ones with an evaluation recorded (every third): their tombstone keeps it. */
  evaluated: Set<string>;
  /** Old conversations' turns, by conversation id. */
  conversations: Map<string, InteractionRecord[]>;
  inUse: InteractionRecord[];
  young: InteractionRecord[];
}

const ended = (days: number, overrides: Partial<InteractionRecord> = {}) => {
  const record = makeRecord({ endTime: new Date(CRASH_NOW - days * DAY).toISOString(), ...overrides });
  if (!('conversationId' in overrides)) delete record.conversationId;
  return record;
};

/** Fills the ledger: `count` old interactions (each with two late spans), 30 old conversations, more. */
export async function fillCrashLedger(store: LedgerStore, count: number): Promise<CrashLedger> {
  const old = Array.from({ length: count }, (_, i) => ended(300 - (i % 250), { finalResponseText: `old ${i}` }));
  const evaluated = new Set<string>();
  for (let at = 0; at < old.length; at += 500) {
    const chunk = old.slice(at, at + 500);
    await store.putInteractions(chunk);
    await store.enqueueEvaluations([], { intake: chunk.map((r) => r.interactionId) });
    await store.putLateSpans(
      chunk.flatMap((r) => [1, 2].map((n) => ({ interactionId: r.interactionId, span: plainSpan(r.traceId, n) }))),
    );
    const outcomes: EvaluationRecord[] = chunk
      .filter((_, i) => (at + i) % 3 === 0)
      .map((r) => ({
        evaluationId: `crash-${r.interactionId}`,
        interactionId: r.interactionId,
        evaluatorId: 'reply-length',
        evaluatorVersion: '1',
        agentId: r.agentId,
        outcome: { type: 'verdict', evaluation: { passed: true, explanation: 'ok', attributes: {} } },
        triggeredAt: r.endTime,
        startedAt: r.endTime,
        completedAt: r.endTime,
        attempts: 1,
      }));
    await store.recordEvaluations(outcomes);
    for (const outcome of outcomes) evaluated.add(outcome.interactionId);
  }
  const conversations = new Map<string, InteractionRecord[]>();
  for (let c = 0; c < 30; c++) {
    const id = `crash-conversation-${c}`;
    const turns = [50, 45, 40].map((days, index) =>
      ended(days + c, {
        conversationId: id,
        ...(index === 2 ? { attributes: { [EVALON_CONVERSATION_ENDED]: true } } : {}),
      }),
    );
    await store.putInteractions(turns);
    await store.enqueueEvaluations([], { intake: turns.map((r) => r.interactionId) });
    conversations.set(id, turns);
  }
  const due = await store.findDueConversations({ now: new Date(CRASH_NOW).toISOString(), idleMs: DAY, limit: 100 });
  await store.enqueueEvaluations([], { conversationIntake: await store.closeConversations(due) });
  // In use: pending spans of its trace.
  const inUse = [ended(100), ended(100)];
  await store.putInteractions(inUse);
  await store.enqueueEvaluations([], { intake: inUse.map((r) => r.interactionId) });
  await store.appendSpans(inUse.map((r) => plainSpan(r.traceId, 99)));
  const young = [ended(5), ended(0)];
  await store.putInteractions(young);
  await store.enqueueEvaluations([], { intake: young.map((r) => r.interactionId) });
  return { old, evaluated, conversations, inUse, young };
}

/**
 * Runs the pruner child on the ledger and SIGKILLs it once it reported `minUnits` interactions
 * pruned, after a random delay of up to 50 ms (so the kill lands inside a transaction as often as
 * between two). Resolves how many it reported.
 */
export function pruneAndKill(kind: 'sqlite' | 'postgres', target: string, minUnits: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TEST_NODE_FLAGS, CHILD, kind, target, String(CRASH_NOW)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let reported = 0;
    let output = '';
    let killing = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      for (const match of chunk.matchAll(/pruned (\d+)/g)) reported = Number(match[1]);
      if (reported >= minUnits && !killing) {
        killing = true;
        setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 50));
      }
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(reported);
      else reject(new Error(`the pruner exited with ${code} before it was killed:\n${output}`));
    });
  });
}

/**
 * Every unit is whole or wholly gone: an old interaction still there has its two late spans; one
 * gone has none, and its evaluation exactly when its tombstone is there (once the pass `finished`:
 * when it ended within keep_evaluations); a conversation has all its turns or none; what is in use
 * and what is young are all there. Resolves how many old interactions are gone.
 */
export async function expectWholeUnits(
  store: LedgerStore,
  sql: SqlReader,
  ledger: CrashLedger,
  finished = false,
): Promise<number> {
  const keptSince = CRASH_NOW - CRASH_POLICY.keepEvaluationsMs!;
  expect(await ledgerInconsistencies(sql)).toEqual({});
  const present = await store.existingInteractionIds(ledger.old.map((r) => r.interactionId));
  for (const record of ledger.old) {
    const late = await store.loadLateSpans(record.interactionId);
    if (present.has(record.interactionId)) {
      expect(late, `late spans of ${record.interactionId}`).toHaveLength(2);
      continue;
    }
    expect(late, `late spans of pruned ${record.interactionId}`).toEqual([]);
    // Its evaluation is kept with its tombstone, until both go together (keep_evaluations).
    const tombstone = await store.getPrunedInteraction(record.interactionId);
    expect((await store.getEvaluations(record.interactionId)).length).toBe(tombstone ? 1 : 0);
    if (!ledger.evaluated.has(record.interactionId)) expect(tombstone).toBeUndefined();
    else if (finished) expect(tombstone !== undefined).toBe(Date.parse(record.endTime) >= keptSince);
  }
  for (const [id, turns] of ledger.conversations) {
    const found = (await store.existingInteractionIds(turns.map((r) => r.interactionId))).size;
    expect([0, turns.length], `turns of ${id} left`).toContain(found);
    expect((await store.getConversation(id, turns[0].agentId)) !== undefined).toBe(found > 0);
  }
  const kept = [...ledger.inUse, ...ledger.young];
  expect((await store.existingInteractionIds(kept.map((r) => r.interactionId))).size).toBe(kept.length);
  return ledger.old.length - present.size;
}
