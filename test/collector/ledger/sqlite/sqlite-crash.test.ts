import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { runAndKill } from '../helpers/crash-run.ts';

const WRITER = new URL('./crash-writer.ts', import.meta.url).pathname;
const SPANS_PER_BATCH = 60;

describe('SQLite store under kill -9', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-crash-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every batch acknowledged before the kill, and no released trace', async () => {
    const path = join(dir, 'ledger.db');
    const acked: number[] = [];
    const released = new Set<number>();
    let next = 0;
    for (let round = 0; round < 3; round += 1) {
      const run = await runAndKill(WRITER, path, next, 20 + round * 10);
      expect(run.acked.length).toBeGreaterThanOrEqual(20);
      acked.push(...run.acked);
      for (const batch of run.released) released.add(batch);
      next = Math.max(...run.acked) + 100;

      const store = createSqliteStore({ path });
      const counts = new Map<number, number>();
      for (const span of await store.loadPendingSpans()) {
        const batch = span.attributes['crash.batch'] as number;
        counts.set(batch, (counts.get(batch) ?? 0) + 1);
      }
      await store.close();
      // The writer releases batch b right after acknowledging b + 5 (even b only): a kill between
      // that release's commit and its printed line leaves b released without a "released" line.
      const ackedSet = new Set(acked);
      const releaseIssued = (batch: number) => released.has(batch) || (batch % 2 === 0 && ackedSet.has(batch + 5));
      const missing = acked.filter((batch) => !releaseIssued(batch) && counts.get(batch) !== SPANS_PER_BATCH);
      expect(missing, `acknowledged batches with missing spans after round ${round}`).toEqual([]);
      expect(
        [...released].filter((batch) => counts.has(batch)),
        'released batches back after a kill',
      ).toEqual([]);
    }
  });
});
