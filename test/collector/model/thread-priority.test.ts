import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import { CHECKPOINT_THREAD_NAME, WRITER_THREAD_NAME } from '../../../collector/ledger/sqlite/writer-client.ts';
import { BACKGROUND_NICENESS_STEPS } from '../../../collector/model/thread-priority.ts';
import { RECORDER_THREAD_NAME, createThreadRecorder } from '../../../collector/processor/interactions/recorder.ts';
import { makeRecord } from '../../helpers/ledger-fixtures.ts';

/** Every thread of this process: its name, and its nice value (field 19 of /proc/self/task/<id>/stat). */
function threads(): Array<{ name: string; nice: number }> {
  return readdirSync('/proc/self/task').flatMap((id) => {
    try {
      const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
      const name = readFileSync(`/proc/self/task/${id}/comm`, 'utf8').trim();
      // The fields after the command name, which is in parentheses and may hold spaces.
      return [{ name, nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) }];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });
}
const threadNiceValues = () => threads().map(({ nice }) => nice);
const named = (name: string) => threads().filter((thread) => thread.name === name);

const BASE = getPriority();
const LOWERED = Math.min(19, BASE + BACKGROUND_NICENESS_STEPS);
const lowered = () => threadNiceValues().filter((nice) => nice === LOWERED).length;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.runIf(process.platform === 'linux')('background threads run below the event loop’s priority', () => {
  it('the recorder thread, while it is started; the process and the calling thread keep theirs', async () => {
    expect(LOWERED).toBeGreaterThan(BASE);
    expect(lowered()).toBe(0);
    const recorder = createThreadRecorder();
    cleanups.push(() => recorder.close());
    // A job with nothing to build: answered once the thread has started.
    await expect(
      recorder.build([{ traceId: 'a'.repeat(32), rows: [], decisions: [], maybePartial: false }]),
    ).resolves.toEqual({ built: [], incomplete: [], missingRoot: [] });
    expect(lowered()).toBe(1);
    expect(getPriority()).toBe(BASE);
    await recorder.close();
    expect(lowered()).toBe(0);
  });

  it('the SQLite ledger’s writer thread, and not its checkpoint thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalon-priority-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const before = threadNiceValues().length;
    const store = createSqliteStore({ path: join(dir, 'ledger.db') });
    cleanups.push(() => store.close());
    // A write: answered once the writer thread has started and committed it.
    const record = makeRecord({ endTime: '2026-12-02T10:00:00.000Z' });
    await expect(store.putInteractions([record])).resolves.toEqual(new Set([record.interactionId]));
    expect((await store.getInteraction(record.interactionId))?.interactionId).toBe(record.interactionId);
    // Two threads more (the writer and the checkpoint thread), one of them lowered.
    expect(threadNiceValues().length).toBeGreaterThanOrEqual(before + 2);
    expect(lowered()).toBe(1);
    expect(getPriority()).toBe(BASE);
    await store.close();
    expect(lowered()).toBe(0);
  });

  it('lowers only the calling thread, from its current nice value, never past the lowest priority', async () => {
    const moduleUrl = new URL('../../../collector/model/thread-priority.ts', import.meta.url);
    const script =
      `import { parentPort } from 'node:worker_threads';\n` +
      `import { lowerThisThreadPriority } from ${JSON.stringify(moduleUrl.href)};\n` +
      'const first = lowerThisThreadPriority(15);\n' +
      'const second = lowerThisThreadPriority(15);\n' +
      'parentPort.postMessage({ first, second });\n';
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(script)}`));
    cleanups.push(() => void worker.terminate());
    const reply = await new Promise<{ first: number; second: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    expect(reply.first).toBe(Math.min(19, BASE + 15));
    expect(reply.second).toBe(19);
    expect(getPriority()).toBe(BASE);
  });
});

describe.runIf(process.platform === 'linux')('background threads are named, as `top -H` and `ps -L` show them', () => {
  it('the recorder thread, and the SQLite ledger’s writer and checkpoint threads', async () => {
    expect([RECORDER_THREAD_NAME, WRITER_THREAD_NAME, CHECKPOINT_THREAD_NAME].map(named)).toEqual([[], [], []]);
    const recorder = createThreadRecorder();
    cleanups.push(() => recorder.close());
    await recorder.build([{ traceId: 'a'.repeat(32), rows: [], decisions: [], maybePartial: false }]);
    expect(named(RECORDER_THREAD_NAME)).toEqual([{ name: RECORDER_THREAD_NAME, nice: LOWERED }]);
    const dir = mkdtempSync(join(tmpdir(), 'evalon-thread-names-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = createSqliteStore({ path: join(dir, 'ledger.db') });
    cleanups.push(() => store.close());
    await store.putInteractions([makeRecord({ endTime: '2026-12-02T10:00:00.000Z' })]);
    expect(named(WRITER_THREAD_NAME)).toEqual([{ name: WRITER_THREAD_NAME, nice: LOWERED }]);
    expect(named(CHECKPOINT_THREAD_NAME)).toEqual([{ name: CHECKPOINT_THREAD_NAME, nice: BASE }]);
    await Promise.all([recorder.close(), store.close()]);
    expect([RECORDER_THREAD_NAME, WRITER_THREAD_NAME, CHECKPOINT_THREAD_NAME].map(named)).toEqual([[], [], []]);
  });
});
