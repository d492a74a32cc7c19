/**
 * Recording decided interactions: from the received bytes held in memory when they are all there,
 * else from the ledger, with the same records either way; one tick reading while the previous one
 * writes, records handed on in the order decided; and a trace's stored spans never released while
 * a tick still has to read them.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionRecord } from '../../../../src/model/records.ts';
import { createSqliteStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import type { LedgerStore } from '../../../../collector/ledger/store.ts';
import { isLocated, type StoredSpans } from '../../../../collector/ledger/span-store.ts';
import { spanRows } from '../../../../collector/ledger/core/rows.ts';
import { CODEC_OTLP_PROTOBUF_DEFLATE, compressSpanRow } from '../../../../collector/ledger/core/span-codec.ts';
import { inflateRecord } from '../../../../collector/ledger/core/record-codec.ts';
import type { Logger } from '../../../../collector/logger.ts';
import { createKeyMatcher } from '../../../../collector/model/otlp-protobuf/key-matcher.ts';
import { spanBatchOf, type SpanBatch } from '../../../../collector/model/span-batch.ts';
import {
  MAX_TICK_SPANS,
  createInteractionsProcessor,
} from '../../../../collector/processor/interactions/interactions-processor.ts';
import { CLASSIFIED_ATTRIBUTES } from '../../../../collector/processor/interactions/classify.ts';
import { createThreadRecorder, type Recorder } from '../../../../collector/processor/interactions/recorder.ts';
import { holdRecords } from '../../../../collector/processor/interactions/lazy-record.ts';
import { receiveTraceRequest } from '../../../../collector/receiver/otlp/index.ts';
import { buildRealisticSpans, serializeProtobuf } from '../../../fixtures/otlp/realistic-spans.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { agentSpan, span, TRACE_A, TRACE_B } from './helpers/span-builder.ts';

const HEADS = createKeyMatcher(CLASSIFIED_ATTRIBUTES);
let sdkSpans: ReadableSpan[];
beforeAll(async () => {
  sdkSpans = await buildRealisticSpans(30);
});

/** Where the harness's processor builds records (each describe below sets it). */
let mode: 'inline' | 'thread' = 'inline';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A held promise: `wait` resolves once `open` is called; `reached` once something waits on it. */
function gate() {
  let open!: () => void;
  let reached!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const waiting = new Promise<void>((resolve) => (reached = resolve));
  return {
    open,
    reached: waiting,
    async wait() {
      reached();
      await opened;
    },
  };
}

interface Harness {
  store: LedgerStore;
  processor: ReturnType<typeof createInteractionsProcessor>;
  handedOn: InteractionRecord[][];
  reads: string[][];
  errors: string[];
  advance(ms: number): void;
}

async function harness(
  pendingSpansMemoryBytes: number,
  wrap: (store: LedgerStore) => LedgerStore = (s) => s,
  recorder: 'inline' | 'thread' | Recorder = mode,
  /** What the next stage does with the records: by default it holds them (it reads them later). */
  consume: (records: InteractionRecord[]) => void = (records) => void holdRecords(records),
  /** The ledger: in memory, or a file (whose span log the recorder reads where the rows are). */
  path = ':memory:',
) {
  const real = createSqliteStore({ path });
  const reads: string[][] = [];
  const store = wrap({
    ...real,
    locateSpansOfTraces: (traceIds) => {
      reads.push([...traceIds]);
      return real.locateSpansOfTraces(traceIds);
    },
  });
  const handedOn: InteractionRecord[][] = [];
  const errors: string[] = [];
  let now = 1_000_000;
  const logger: Logger = { info() {}, warn: (line) => errors.push(line), error: (line) => errors.push(line) };
  const processor = createInteractionsProcessor({
    store,
    config: {
      settleMs: 1_000,
      decisionWaitMs: 5_000,
      maxPendingTraces: 1_000,
      pendingSpansMemoryBytes,
      tickMs: 3_600_000,
      recorder,
    },
    next: {
      consumeInteractions: async (records) => {
        consume(records);
        handedOn.push(records);
      },
    },
    clock: () => now,
    logger,
  });
  stops.push(
    () => real.close(),
    () => processor.shutdown(),
  );
  await processor.start();
  return {
    store,
    processor,
    handedOn,
    reads,
    errors,
    advance: (ms: number) => {
      now += ms;
    },
  } satisfies Harness;
}

/** A request of the realistic interactions `from..to` as the receiver hands it on. */
const received = (from: number, to: number): SpanBatch =>
  receiveTraceRequest(serializeProtobuf(sdkSpans.slice(from * 10, to * 10)), 'protobuf', HEADS).batch;

/** Two interactions decided in one tick, then one in the next. */
async function twoTicks(run: Harness): Promise<void> {
  await run.processor.consume(received(0, 2));
  run.advance(2_000);
  await run.processor.tick();
  await run.processor.consume(received(2, 3));
  run.advance(2_000);
  await run.processor.tick();
}

describe.each(['inline', 'thread'] as const)('records built %s', (recorder) => {
  beforeAll(() => {
    mode = recorder;
  });

  it('reads spans back where a ledger file keeps them, and lets go of them once built', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalon-recording-'));
    stops.push(async () => rmSync(dir, { recursive: true, force: true }));
    const located: StoredSpans[][] = [];
    let released = 0;
    const reference = await harness(64 * 1024 * 1024);
    const fromFile = await harness(
      0,
      (store) => ({
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
      mode,
      undefined,
      join(dir, 'ledger.db'),
    );
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
    const held = await harness(64 * 1024 * 1024);
    const unheld = await harness(0);
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
    const reference = await harness(64 * 1024 * 1024);
    const answered: number[] = [];
    // Held as the store answers them: compressed rows a tenth of the received bytes fit where the
    // received requests would not.
    const requests = [received(0, 2), received(2, 3)];
    const bound = requests
      .flatMap((batch) => spanRows(batch, 'test').map((row) => compressSpanRow(row).bytes.byteLength))
      .reduce((sum, size) => sum + size, 0);
    for (const batch of requests) expect(batch.byTrace!.bytes.buffer.byteLength).toBeGreaterThan(bound);
    const compressed = await harness(bound, (store) => ({
      ...store,
      appendSpans: async (spans) => {
        await store.appendSpans(spans);
        const rows = spanRows(spans, 'test').map((row) => compressSpanRow(row));
        answered.push(...rows.map((row) => row.codec));
        return rows;
      },
    }));
    for (const h of [reference, compressed]) {
      await h.processor.consume(received(0, 2));
      await h.processor.consume(received(2, 3));
      h.advance(2_000);
      await h.processor.tick();
    }
    expect(answered).toEqual([CODEC_OTLP_PROTOBUF_DEFLATE, CODEC_OTLP_PROTOBUF_DEFLATE, CODEC_OTLP_PROTOBUF_DEFLATE]);
    expect(compressed.handedOn.flat()).toHaveLength(3);
    expect(compressed.handedOn).toStrictEqual(reference.handedOn);
    expect(compressed.reads).toEqual([]);
    expect(await compressed.store.loadPendingSpans()).toEqual([]);
  });

  it('compresses the records for a store that keeps them so, on the recorder thread when there is one', async () => {
    const reference = await harness(64 * 1024 * 1024);
    const written: Array<{ json: string; deflated?: Uint8Array }> = [];
    const compressing = await harness(64 * 1024 * 1024, (store) => ({
      ...store,
      compressesRecords: true,
      putEncodedInteractions: (rows) => {
        for (const { json, deflated } of rows)
          written.push({ json: typeof json === 'string' ? json : Buffer.from(json).toString('utf8'), deflated });
        return store.putEncodedInteractions(rows);
      },
    }));
    for (const h of [reference, compressing]) await twoTicks(h);
    expect(compressing.handedOn).toStrictEqual(reference.handedOn);
    expect(written).toHaveLength(3);
    for (const { json, deflated } of written) {
      expect(JSON.parse(json)).toMatchObject({ agentId: expect.any(String) });
      // Built on the event loop, they are left to the store (which compresses them itself).
      if (recorder === 'inline') expect(deflated).toBeUndefined();
      else {
        expect(deflated!.byteLength).toBeLessThan(json.length / 2);
        expect(inflateRecord(deflated!)).toBe(json);
      }
    }
  });

  it('reads back a trace part of which arrived as OTLP/JSON (not held)', async () => {
    const h = await harness(64 * 1024 * 1024);
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
    const h = await harness(0, (store) => ({
      ...store,
      // The first write is held after the ledger has it (writes take effect in call order).
      putEncodedInteractions: async (rows) => {
        const written = store.putEncodedInteractions(rows);
        if (++puts === 1) await put.wait();
        return written;
      },
    }));
    await h.processor.consume(spanBatchOf([agentSpan({ id: 1, agent: 'shop', traceId: TRACE_A })]));
    h.advance(2_000);
    const first = h.processor.tick();
    await put.reached;
    await h.processor.consume(spanBatchOf([agentSpan({ id: 1, agent: 'shop', traceId: TRACE_B })]));
    h.advance(2_000);
    const second = h.processor.tick();
    // The second tick read its trace and called its write while the first one's is held; it hands
    // nothing on before the first has.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(h.reads).toEqual([[TRACE_A], [TRACE_B]]);
    expect(puts).toBe(2);
    expect(h.handedOn).toEqual([]);
    put.open();
    await Promise.all([first, second]);
    expect(h.handedOn.map((records) => records.map((record) => record.traceId))).toEqual([[TRACE_A], [TRACE_B]]);
  });

  it('keeps a trace’s stored spans while a tick reads them, when a late span of it arrives meanwhile', async () => {
    const read = gate();
    const h = await harness(0, (store) => ({
      ...store,
      locateSpansOfTraces: async (traceIds) => {
        await read.wait();
        return store.locateSpansOfTraces(traceIds);
      },
    }));
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
    const h = await harness(64 * 1024 * 1024);
    // 600 agent traces of 10 spans: more than MAX_TICK_SPANS in one tick.
    const spans = Array.from({ length: 600 }, (_, t) => {
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
    expect(h.handedOn.flat().length).toBeLessThan(600);
    await pollUntil(() => (h.handedOn.flat().length === 600 ? true : undefined), { timeoutMs: 10_000 });
    expect(h.handedOn.length).toBeGreaterThan(1);
    expect(new Set(h.handedOn.flat().map((record) => record.traceId)).size).toBe(600);
  });

  it('waits for the writes of every tick on shutdown', async () => {
    const put = gate();
    const h = await harness(64 * 1024 * 1024, (store) => ({
      ...store,
      putEncodedInteractions: async (rows) => {
        await put.wait();
        return store.putEncodedInteractions(rows);
      },
    }));
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
  const h = await harness(64 * 1024 * 1024, undefined, failing);
  const reference = await harness(64 * 1024 * 1024, undefined, 'inline');
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

describe('the records’ JSON from the recorder thread', () => {
  it('is freed once the next stage has the records, unless it holds them, and read after that fails', async () => {
    let during: string | undefined;
    const kept: InteractionRecord[] = [];
    let hold: ReturnType<typeof holdRecords> | undefined;
    const h = await harness(64 * 1024 * 1024, undefined, 'thread', (records) => {
      if (hold) return;
      // Read while being handed on: always there.
      during = records[0].finalResponseText;
      hold = holdRecords(records);
      kept.push(...records);
    });
    const reference = await harness(64 * 1024 * 1024, undefined, 'inline');
    for (const run of [h, reference]) await twoTicks(run);
    const [first, second] = h.handedOn;
    expect([first.length, second.length]).toEqual([2, 1]);
    expect(during).toBe(reference.handedOn[0][0].finalResponseText);
    // The first batch is held: readable after the hand-off, as the inline recorder's records (its
    // second record is left unread, for what follows).
    expect(first[0]).toStrictEqual(reference.handedOn[0][0]);
    // The second is not: its buffer was freed, and reading its content names the interaction.
    expect(second[0].agentId).toBe(reference.handedOn[1][0].agentId);
    expect(() => second[0].transcript).toThrow(
      new RegExp(`content of interaction ${second[0].interactionId} was read after its batch was released`),
    );
    // Released, the held batch goes the same way; what was read before stays.
    hold!.release();
    expect(kept[0].input).toStrictEqual(reference.handedOn[0][0].input);
    expect(() => kept[1].transcript).toThrow(/was read after its batch was released/);
  });
});
