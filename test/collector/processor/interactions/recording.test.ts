/**
 * Recording decided interactions: from the received bytes held in memory when they are all there,
 * else from the ledger, with the same records either way; one tick reading while the previous one
 * writes, records handed on in the order decided; and a trace's stored spans never released while
 * a tick still has to read them. What the recorder thread hands back (the records' JSON, compressed
 * or not) is tested in recorder-output.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLocated, type StoredSpans } from '../../../../collector/ledger/span-store.ts';
import { spanRows } from '../../../../collector/ledger/core/rows.ts';
import { CODEC_OTLP_PROTOBUF_LZ4, compressSpanRow } from '../../../../collector/ledger/core/span-codec.ts';
import { spanBatchOf } from '../../../../collector/model/span-batch.ts';
import { MAX_TICK_SPANS } from '../../../../collector/processor/interactions/tuning.ts';
import { createThreadRecorder } from '../../../../collector/processor/interactions/recorder.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { gate, useRecordingHarness } from './helpers/recording-harness.ts';
import { agentSpan, span, TRACE_A, TRACE_B } from './helpers/span-builder.ts';

/** Enough `pending_spans_memory` to hold every span of these tests. */
const MEMORY = 64 * 1024 * 1024;
const { harness, received, twoTicks, onStop } = useRecordingHarness();

describe.each(['inline', 'thread'] as const)('records built %s', (recorder) => {
  it('reads spans back where a ledger file keeps them, and lets go of them once built', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalon-recording-'));
    onStop(async () => rmSync(dir, { recursive: true, force: true }));
    const located: StoredSpans[][] = [];
    let released = 0;
    const reference = await harness({ memory: MEMORY, recorder });
    const fromFile = await harness({
      memory: 0,
      recorder,
      wrap: (store) => ({
        ...store,
        locateSpansOfTraces: async (traceIds) => {
          const answer = await store.locateSpansOfTraces(traceIds);
          located.push([...answer.values()].flat());
          return answer;
        },
        releaseEncodedSpans: (read) => {
          released++;
          store.releaseEncodedSpans(read);
        },
      }),
      path: join(dir, 'ledger.db'),
    });
    for (const h of [reference, fromFile]) await twoTicks(h);
    expect(fromFile.handedOn.flat()).toHaveLength(3);
    expect(fromFile.handedOn).toStrictEqual(reference.handedOn);
    // Where the rows are, not their bytes: the build reads them (on the recorder's thread).
    expect(located.flat().length).toBeGreaterThanOrEqual(3);
    expect(located.flat().every(isLocated)).toBe(true);
    expect(released).toBe(located.length);
    expect(await fromFile.store.loadPendingSpans()).toEqual([]);
  });

  it('builds the same records from spans held in memory as from spans read back, reading nothing back', async () => {
    const held = await harness({ memory: MEMORY, recorder });
    const unheld = await harness({ memory: 0, recorder });
    for (const h of [held, unheld]) {
      await h.processor.consume(received(0, 2));
      await h.processor.consume(received(2, 3));
      h.advance(2_000);
      await h.processor.tick();
    }
    expect(held.handedOn.flat()).toHaveLength(3);
    expect(held.handedOn).toStrictEqual(unheld.handedOn);
    expect(held.reads).toEqual([]);
    expect(unheld.reads.flat().sort()).toEqual(
      held.handedOn
        .flat()
        .map((record) => record.traceId)
        .sort(),
    );
    expect(await held.store.loadPendingSpans()).toEqual([]);
  });

  it('holds the rows a store answers for what it stored (compressed, as PostgreSQL), reading none back', async () => {
    const reference = await harness({ memory: MEMORY, recorder });
    const answered: number[] = [];
    // Held as the store answers them: compressed rows a tenth of the received bytes fit where the
    // received requests would not.
    const requests = [received(0, 2), received(2, 3)];
    const bound = requests
      .flatMap((batch) => spanRows(batch, 'test').map((row) => compressSpanRow(row).bytes.byteLength))
      .reduce((sum, size) => sum + size, 0);
    for (const batch of requests) expect(batch.byTrace!.bytes.buffer.byteLength).toBeGreaterThan(bound);
    const compressed = await harness({
      memory: bound,
      recorder,
      wrap: (store) => ({
        ...store,
        appendSpans: async (spans) => {
          await store.appendSpans(spans);
          const rows = spanRows(spans, 'test').map((row) => compressSpanRow(row));
          answered.push(...rows.map((row) => row.codec));
          return rows;
        },
      }),
    });
    for (const h of [reference, compressed]) {
      await h.processor.consume(received(0, 2));
      await h.processor.consume(received(2, 3));
      h.advance(2_000);
      await h.processor.tick();
    }
    expect(answered).toEqual([CODEC_OTLP_PROTOBUF_LZ4, CODEC_OTLP_PROTOBUF_LZ4, CODEC_OTLP_PROTOBUF_LZ4]);
    expect(compressed.handedOn.flat()).toHaveLength(3);
    expect(compressed.handedOn).toStrictEqual(reference.handedOn);
    expect(compressed.reads).toEqual([]);
    expect(await compressed.store.loadPendingSpans()).toEqual([]);
  });

  it('reads back a trace part of which arrived as OTLP/JSON (not held)', async () => {
    const h = await harness({ memory: MEMORY, recorder });
    await h.processor.consume(spanBatchOf([agentSpan({ id: 1, agent: 'shop' })]));
    await h.processor.consume(spanBatchOf([span({ id: 2, parent: 1 })]));
    h.advance(2_000);
    await h.processor.tick();
    expect(h.handedOn.flat().map((record) => record.interactionId)).toEqual([`${TRACE_A}-${'1'.padStart(16, '0')}`]);
    expect(h.reads).toEqual([[TRACE_A]]);
  });

  it('reads and writes the next tick while the previous one writes; hands records on in order', async () => {
    const put = gate();
    let puts = 0;
    const h = await harness({
      memory: 0,
      recorder,
      wrap: (store) => ({
        ...store,
        // The first write is held after the ledger has it (writes take effect in call order).
        putEncodedInteractions: async (rows) => {
          const written = store.putEncodedInteractions(rows);
          if (++puts === 1) await put.wait();
          return written;
        },
      }),
    });
    await h.processor.consume(spanBatchOf([agentSpan({ id: 1, agent: 'shop', traceId: TRACE_A })]));
    h.advance(2_000);
    const first = h.processor.tick();
    await put.reached;
    await h.processor.consume(spanBatchOf([agentSpan({ id: 1, agent: 'shop', traceId: TRACE_B })]));
    h.advance(2_000);
    const second = h.processor.tick();
    // The second tick read its trace and called its write while the first one's is held; it hands
    // nothing on before the first has.
    await pollUntil(() => (puts === 2 ? true : undefined), { timeoutMs: 10_000 });
    expect(h.reads).toEqual([[TRACE_A], [TRACE_B]]);
    expect(h.handedOn).toEqual([]);
    put.open();
    await Promise.all([first, second]);
    expect(h.handedOn.map((records) => records.map((record) => record.traceId))).toEqual([[TRACE_A], [TRACE_B]]);
  });

  it('keeps a trace’s stored spans while a tick reads them, when a late span of it arrives meanwhile', async () => {
    const read = gate();
    const h = await harness({
      memory: 0,
      recorder,
      wrap: (store) => ({
        ...store,
        locateSpansOfTraces: async (traceIds) => {
          await read.wait();
          return store.locateSpansOfTraces(traceIds);
        },
      }),
    });
    await h.processor.consume(spanBatchOf([agentSpan({ id: 1, agent: 'shop' }), span({ id: 2, parent: 1 })]));
    h.advance(2_000);
    const ticked = h.processor.tick();
    await read.reached;
    // Its interaction is decided and being recorded: this one is late, and must not release the trace.
    await h.processor.consume(spanBatchOf([span({ id: 3, parent: 1 })]));
    expect(h.processor.stats.lateSpans).toBe(1);
    read.open();
    await ticked;
    expect(h.errors).toEqual([]);
    expect(h.handedOn.flat()).toHaveLength(1);
    expect(h.handedOn[0][0].toolCalls ?? []).toEqual([]);
    // Once recorded, the tick released the trace, the late span's row with it.
    expect(await h.store.loadTraceSpans(TRACE_A)).toEqual([]);
    expect(await h.store.loadLateSpans(h.handedOn[0][0].interactionId)).toHaveLength(1);
  });

  it('records a backlog larger than one tick takes in ticks one right after another', async () => {
    // Agent traces of 10 spans, more of them than one tick takes (MAX_TICK_SPANS), all pending at once.
    const traces = Math.floor(MAX_TICK_SPANS / 10) + 100;
    const h = await harness({ memory: MEMORY, recorder, maxPendingTraces: 2 * traces });
    const spans = Array.from({ length: traces }, (_, t) => {
      const traceId = `b${t.toString(16).padStart(31, '0')}`;
      return [
        agentSpan({ id: 1, agent: 'shop', traceId }),
        ...Array.from({ length: 9 }, (_, i) => span({ id: 2 + i, parent: 1, traceId })),
      ];
    }).flat();
    expect(spans.length).toBeGreaterThan(MAX_TICK_SPANS);
    await h.processor.consume(spanBatchOf(spans));
    h.advance(2_000);
    await h.processor.tick();
    await pollUntil(() => (h.handedOn.flat().length === traces ? true : undefined), { timeoutMs: 10_000 });
    // One tick hands on what it decided at once: no tick took more than MAX_TICK_SPANS.
    expect(h.handedOn.length).toBeGreaterThan(1);
    for (const handed of h.handedOn) expect(handed.length * 10).toBeLessThanOrEqual(MAX_TICK_SPANS);
    expect(new Set(h.handedOn.flat().map((record) => record.traceId)).size).toBe(traces);
  });

  it('waits for the writes of every tick on shutdown', async () => {
    const put = gate();
    const h = await harness({
      memory: MEMORY,
      recorder,
      wrap: (store) => ({
        ...store,
        putEncodedInteractions: async (rows) => {
          await put.wait();
          return store.putEncodedInteractions(rows);
        },
      }),
    });
    await h.processor.consume(received(0, 1));
    h.advance(2_000);
    void h.processor.tick();
    await put.reached;
    let stopped = false;
    const shutdown = h.processor.shutdown().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    put.open();
    await shutdown;
    expect(h.handedOn.flat()).toHaveLength(1);
  });
});

it('builds records on the event loop, from the ledger, once the recorder thread failed, saying so once', async () => {
  const failing = createThreadRecorder({
    threadUrl: new URL('../../../fixtures/recorder/failing-thread.ts', import.meta.url),
  });
  const h = await harness({ memory: MEMORY, recorder: failing });
  const reference = await harness({ memory: MEMORY });
  for (const run of [h, reference]) await twoTicks(run);
  expect(h.handedOn.flat()).toHaveLength(3);
  expect(h.handedOn).toStrictEqual(reference.handedOn);
  // The first tick's traces were held in memory, and read again from the ledger once the thread failed.
  expect(h.reads.flat().sort()).toEqual(h.handedOn[0].map((record) => record.traceId).sort());
  expect(h.errors).toHaveLength(1);
  expect(h.errors[0]).toMatch(
    /the recorder thread stopped \(exit code 3\); building records on the event loop from now on/,
  );
  expect(await h.store.loadPendingSpans()).toEqual([]);
});
