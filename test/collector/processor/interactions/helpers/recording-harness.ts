/**
 * An interactions processor over a real SQLite ledger, for the tests of recording: its clock moved
 * by hand, its reads of the ledger and its warnings collected, the records it hands on kept, and
 * requests of realistic interactions as the receiver hands them on. `useRecordingHarness` registers
 * what a test file needs (the realistic spans before all, stopping every processor and store after
 * each) and returns the factories.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterEach, beforeAll } from 'vitest';
import type { InteractionRecord } from '../../../../../src/model/records.ts';
import { createSqliteStore } from '../../../../../collector/ledger/sqlite/sqlite-store.ts';
import type { LedgerStore } from '../../../../../collector/ledger/store.ts';
import type { Logger } from '../../../../../collector/logger.ts';
import { createKeyMatcher } from '../../../../../collector/model/otlp-protobuf/key-matcher.ts';
import type { SpanBatch } from '../../../../../collector/model/span-batch.ts';
import { createInteractionsProcessor } from '../../../../../collector/processor/interactions/interactions-processor.ts';
import { CLASSIFIED_ATTRIBUTES } from '../../../../../collector/processor/interactions/classify.ts';
import type { Recorder } from '../../../../../collector/processor/interactions/recorder.ts';
import { holdRecords } from '../../../../../collector/processor/interactions/lazy-record.ts';
import { receiveTraceRequest } from '../../../../../collector/receiver/otlp/index.ts';
import { buildRealisticSpans, serializeProtobuf } from '../../../../fixtures/otlp/realistic-spans.ts';

const HEADS = createKeyMatcher(CLASSIFIED_ATTRIBUTES);

/** A held promise: `wait` resolves once `open` is called; `reached` once something waits on it. */
export function gate() {
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

export interface Harness {
  store: LedgerStore;
  processor: ReturnType<typeof createInteractionsProcessor>;
  handedOn: InteractionRecord[][];
  reads: string[][];
  errors: string[];
  advance(ms: number): void;
}

export interface HarnessOptions {
  /** `pending_spans_memory`: 0 reads every span back from the ledger. */
  memory: number;
  /** The store as the processor sees it (a test wraps methods to watch or hold them). */
  wrap?: (store: LedgerStore) => LedgerStore;
  /** Where records are built (default inline). */
  recorder?: 'inline' | 'thread' | Recorder;
  /** What the next stage does with the records: by default it holds them (it reads them later). */
  consume?: (records: InteractionRecord[]) => void;
  /** The ledger: in memory (default), or a file (whose span log the recorder reads where the rows are). */
  path?: string;
  /** `max_pending_traces` (default 1,000). */
  maxPendingTraces?: number;
}

export function useRecordingHarness() {
  let sdkSpans: ReadableSpan[] = [];
  beforeAll(async () => {
    sdkSpans = await buildRealisticSpans(30);
  });
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  async function harness(options: HarnessOptions): Promise<Harness> {
    const { wrap = (s) => s, recorder = 'inline', consume = (records) => void holdRecords(records) } = options;
    const real = createSqliteStore({ path: options.path ?? ':memory:' });
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
        maxPendingTraces: options.maxPendingTraces ?? 1_000,
        pendingSpansMemoryBytes: options.memory,
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
      advance: (ms) => {
        now += ms;
      },
    };
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

  /** Stopped after the test, with the processors and stores. */
  const onStop = (stop: () => Promise<void>) => void stops.push(stop);

  return { harness, received, twoTicks, onStop };
}
