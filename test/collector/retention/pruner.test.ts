/**
 * The background pruner over a real SQLite ledger: passes on its interval (fake timers, an injected
 * clock), counters by kind, the review store's hook consulted once the store implements it, the
 * over-size warning said once, and a shutdown that waits for the pass in progress.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RetainedSubject } from '../../../collector/ledger/ledger-retention.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import type { Logger } from '../../../collector/logger.ts';
import { createLedgerPruner } from '../../../collector/retention/pruner.ts';
import { DAY, ended, NOW, recorded } from '../ledger/retention-contract.ts';

const INTERVAL_MS = 1_000;

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (message: string) => lines.push(`${level} ${message}`);
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

describe('ledger pruner', () => {
  let dir: string;
  let store: SqliteLedgerStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalon-pruner-'));
    store = createSqliteStore({ path: join(dir, 'ledger.db') });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const exists = async (id: string) => (await store.getInteraction(id)) !== undefined;

  it('runs a pass every interval at the injected time, and counts what it pruned by kind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const [old, young, newest] = [ended(40), ended(20), ended(0)];
    await recorded(store, [old, young, newest]);
    let now = NOW;
    const logger = recordingLogger();
    const pruner = createLedgerPruner({
      store,
      policy: { maxAgeMs: 30 * DAY },
      logger,
      clock: () => now,
      intervalMs: INTERVAL_MS,
    });
    await pruner.start();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS - 1);
    expect(logger.lines).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    // The pass started by the timer; pruneNow runs after it, finding nothing more.
    await pruner.pruneNow();
    expect(logger.lines.filter((line) => line.startsWith('debug retention: pruned'))).toEqual([
      'debug retention: pruned 1 units (1 interactions); 0.0 MiB given back',
    ]);
    expect(await exists(old.interactionId)).toBe(false);
    expect(await exists(young.interactionId)).toBe(true);

    // Time passes (the injected clock): the next pass on the timer prunes the younger one.
    now += 15 * DAY;
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    await pruner.pruneNow();
    expect(await exists(young.interactionId)).toBe(false);
    expect(pruner.pruned()).toEqual([
      { kind: 'interactions', count: 2 },
      { kind: 'late_spans', count: 0 },
      { kind: 'conversations', count: 0 },
      { kind: 'evaluations', count: 0 },
      { kind: 'reviews', count: 0 },
    ]);
    await pruner.shutdown();
    await pruner.shutdown();
  });

  it("asks the review store's isUnderOpenReview before pruning a subject, and keeps it when it says so", async () => {
    const [reviewed, free, newest] = [ended(40), ended(40), ended(0)];
    await recorded(store, [reviewed, free, newest]);
    const asked: RetainedSubject[] = [];
    // The ledger store's own isUnderOpenReview (its review role), watched, and answering yes for one.
    const watched = {
      ...store,
      async isUnderOpenReview(subject: RetainedSubject) {
        asked.push(subject);
        if (subject.kind === 'interaction' && subject.interactionId === reviewed.interactionId) return true;
        return store.isUnderOpenReview(subject);
      },
    };
    const pruner = createLedgerPruner({
      store,
      policy: { maxAgeMs: 30 * DAY },
      logger: recordingLogger(),
      clock: () => NOW,
      reviews: watched,
    });
    const report = await pruner.pruneNow();
    expect(asked).toEqual(
      expect.arrayContaining([
        { kind: 'interaction', interactionId: reviewed.interactionId },
        { kind: 'interaction', interactionId: free.interactionId },
      ]),
    );
    expect(report).toMatchObject({ units: 1, keptForReview: 1 });
    expect(await exists(reviewed.interactionId)).toBe(true);
    expect(await exists(free.interactionId)).toBe(false);
  });

  it('says once that the ledger stays above max_size while what is left is in use, then that it is under', async () => {
    const records = Array.from({ length: 20 }, (_, i) => ended(20 - i, { finalResponseText: 'y'.repeat(100_000) }));
    // Recorded, not taken in: every one of them awaits intake.
    await store.putInteractions(records);
    const maxSizeBytes = Math.round((await store.measureLedgerSize()).usedBytes * 0.6);
    const logger = recordingLogger();
    const pruner = createLedgerPruner({ store, policy: { maxSizeBytes }, logger, clock: () => NOW });
    expect(await pruner.pruneNow()).toMatchObject({ overSize: true, units: 0 });
    await pruner.pruneNow();
    expect(logger.lines.filter((line) => line.includes('above max_size'))).toHaveLength(1);
    await store.enqueueEvaluations([], { intake: records.map((r) => r.interactionId) });
    expect(await pruner.pruneNow()).toMatchObject({ overSize: false });
    expect(logger.lines).toContain('info retention: the ledger is under max_size again');
  });

  it('stops at shutdown between two batches, leaving every unit whole', async () => {
    const records = Array.from({ length: 300 }, (_, i) => ended(400 - i));
    await recorded(store, [...records, ended(0)]);
    const pruner = createLedgerPruner({
      store,
      policy: { maxAgeMs: 30 * DAY },
      logger: recordingLogger(),
      clock: () => NOW,
    });
    const pass = pruner.pruneNow();
    await pruner.shutdown();
    const report = await pass;
    // Stopped early: some pruned, the rest still there, each interaction wholly one or the other.
    const left = (await store.existingInteractionIds(records.map((r) => r.interactionId))).size;
    expect(report!.units).toBeLessThan(records.length);
    expect(left + report!.units).toBe(records.length);
  });
});
