/**
 * A recorder of two threads (what a store that compresses records, PostgreSQL, gets): a tick's jobs
 * go to both, and the records are the ones a single thread builds, compressed alike.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { inflateRecord } from '../../../../collector/ledger/core/record-codec.ts';
import type { EncodedInteraction } from '../../../../collector/ledger/interaction-store.ts';
import { spanBatchOf } from '../../../../collector/model/span-batch.ts';
import {
  RECORDER_THREAD_NAME,
  TRACES_PER_JOB,
  createThreadRecorder,
} from '../../../../collector/processor/interactions/recorder.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { type Harness, useRecordingHarness } from './helpers/recording-harness.ts';
import { agentSpan, span } from './helpers/span-builder.ts';

const MEMORY = 64 * 1024 * 1024;
const { harness } = useRecordingHarness();

/** The process's threads named as recorder threads (Linux names a worker's thread after it). */
const recorderThreads = () =>
  readdirSync('/proc/self/task').filter(
    (task) => readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim() === RECORDER_THREAD_NAME,
  ).length;

it('spreads a tick over two threads and builds, compressed, the records one thread builds', async () => {
  const traces = TRACES_PER_JOB * 4;
  const spans = Array.from({ length: traces }, (_, t) => {
    const traceId = `c${t.toString(16).padStart(31, '0')}`;
    return [agentSpan({ id: 1, agent: 'shop', traceId }), span({ id: 2, parent: 1, traceId })];
  }).flat();
  const written = new Map<number, Array<{ json: string; deflated?: Uint8Array }>>();
  const runs: Harness[] = [];
  for (const threads of [1, 2]) {
    const rows: Array<{ json: string; deflated?: Uint8Array }> = [];
    written.set(threads, rows);
    const before = recorderThreads();
    const h = await harness({
      memory: MEMORY,
      recorder: createThreadRecorder({ threads, compressRecords: true }),
      wrap: (store) => ({
        ...store,
        compressesRecords: true,
        putEncodedInteractions: (encoded: EncodedInteraction[]) => {
          for (const { json, deflated } of encoded)
            rows.push({ json: typeof json === 'string' ? json : Buffer.from(json).toString('utf8'), deflated });
          return store.putEncodedInteractions(encoded);
        },
      }),
    });
    await h.processor.consume(spanBatchOf(spans));
    h.advance(2_000);
    await h.processor.tick();
    await pollUntil(() => (h.handedOn.flat().length === traces ? true : undefined), { timeoutMs: 10_000 });
    expect(recorderThreads() - before, `${threads} thread(s)`).toBe(threads);
    runs.push(h);
  }
  const byTrace = (h: Harness) => h.handedOn.flat().sort((a, b) => a.traceId.localeCompare(b.traceId));
  expect(byTrace(runs[1])).toStrictEqual(byTrace(runs[0]));
  const [one, two] = [written.get(1)!, written.get(2)!].map((rows) =>
    rows
      .map(({ json, deflated }) => ({ json, inflated: inflateRecord(deflated!) }))
      .sort((a, b) => a.json.localeCompare(b.json)),
  );
  expect(two).toHaveLength(traces);
  expect(two).toStrictEqual(one);
  for (const { json, inflated } of two) expect(inflated).toBe(json);
});
