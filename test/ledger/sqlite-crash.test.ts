import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../collector/ledger/sqlite/sqlite-store.ts';

const WRITER = new URL('./crash-writer.ts', import.meta.url).pathname;
const SPANS_PER_BATCH = 60;

interface RunResult {
  acked: number[];
  released: number[];
}

/** Runs the writer until it has acknowledged `minAcks` batches plus a random delay, then SIGKILLs it. */
function runAndKill(path: string, firstBatch: number, minAcks: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, path, String(firstBatch)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const result: RunResult = { acked: [], released: [] };
    let buffer = '';
    let stderr = '';
    let killTimer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const [what, batch] = line.split(' ');
        if (what === 'acked') result.acked.push(Number(batch));
        if (what === 'released') result.released.push(Number(batch));
      }
      if (result.acked.length >= minAcks && !killTimer) {
        killTimer = setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 150));
      }
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited with ${code ?? signal} before it was killed: ${stderr}`));
      else resolve(result);
    });
  });
}

describe('SQLite store under kill -9', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-crash-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every batch acknowledged before the kill, and no released trace', async () => {
    const path = join(dir, 'ledger.db');
    const acked: number[] = [];
    const released = new Set<number>();
    let next = 0;
    for (let round = 0; round < 3; round += 1) {
      const run = await runAndKill(path, next, 20 + round * 10);
      expect(run.acked.length).toBeGreaterThanOrEqual(20);
      acked.push(...run.acked);
      run.released.forEach((batch) => released.add(batch));
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
      expect([...released].filter((batch) => counts.has(batch)), 'released batches back after a kill').toEqual([]);
    }
  });
});
