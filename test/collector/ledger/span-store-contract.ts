/**
 * The span role of the ledger contract (`SpanStore`): the write-ahead path of received spans —
 * appended, replayed in order, read by trace (decoded or as stored), released — and late spans.
 * Run by `describeLedgerStoreContract` for every store.
 */
import { describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../../collector/ledger/store.ts';
import type { SpanData } from '../../../collector/model/span.ts';
import { decodeEncodedSpans } from '../../../collector/ledger/span-store.ts';
import { receiveTraceRequest } from '../../../collector/receiver/otlp/index.ts';
import { buildRealisticSpans, serializeProtobuf } from '../../fixtures/otlp/realistic-spans.ts';
import { makeRecord, plainSpan, richSpan, TRACE_A, TRACE_B, TRACE_C } from '../../helpers/ledger-fixtures.ts';

const byId = (a: { spanId: string }, b: { spanId: string }) => a.spanId.localeCompare(b.spanId);

export function describeSpanStoreContract(current: () => LedgerStore, reopen: () => Promise<LedgerStore>): void {
  describe('spans', () => {
    it('returns appended spans exactly, with every attribute value type', async () => {
      const spans = [richSpan(TRACE_A, '1'.repeat(16)), richSpan(TRACE_A, '2'.repeat(16), '1'.repeat(16))];
      await current().appendSpans(spans);
      const loaded = await current().loadPendingSpans();
      expect(loaded).toStrictEqual(spans);
      expect(loaded[0].attributes.bytes).toBeInstanceOf(Uint8Array);
      expect(loaded[0].attributes.bytes).toStrictEqual(new Uint8Array([0, 1, 2, 127, 128, 254, 255]));
      expect('parentSpanId' in loaded[0]).toBe(false);
      expect(await current().loadTraceSpans(TRACE_A)).toStrictEqual(spans);
    });

    it('keeps each trace in the order its spans were appended, across calls', async () => {
      await current().appendSpans([plainSpan(TRACE_A, 1), plainSpan(TRACE_B, 2), plainSpan(TRACE_A, 3)]);
      await current().appendSpans([plainSpan(TRACE_B, 4), plainSpan(TRACE_A, 5)]);
      const pending = await current().loadPendingSpans();
      expect(pending).toHaveLength(5);
      expect(pending.filter((s) => s.traceId === TRACE_A).map((s) => s.attributes.n)).toEqual([1, 3, 5]);
      expect(pending.filter((s) => s.traceId === TRACE_B).map((s) => s.attributes.n)).toEqual([2, 4]);
      expect((await current().loadTraceSpans(TRACE_A)).map((s) => s.attributes.n)).toEqual([1, 3, 5]);
      expect((await current().loadTraceSpans(TRACE_B)).map((s) => s.attributes.n)).toEqual([2, 4]);
      const both = await current().loadSpansOfTraces([TRACE_B, TRACE_A, TRACE_C, TRACE_A]);
      expect([...both.keys()].sort()).toEqual([TRACE_A, TRACE_B].sort());
      expect(both.get(TRACE_A)!.map((s) => s.attributes.n)).toEqual([1, 3, 5]);
      expect(both.get(TRACE_B)!.map((s) => s.attributes.n)).toEqual([2, 4]);
      expect(await current().loadSpansOfTraces([])).toEqual(new Map());
      // The same rows not decoded: what a recorder thread decodes.
      const encoded = await current().loadEncodedSpansOfTraces([TRACE_B, TRACE_A, TRACE_C]);
      expect([...encoded.keys()].sort()).toEqual([TRACE_A, TRACE_B].sort());
      expect(decodeEncodedSpans(encoded.get(TRACE_A)!, 'test').map((s) => s.attributes.n)).toEqual([1, 3, 5]);
      expect(decodeEncodedSpans(encoded.get(TRACE_B)!, 'test')).toStrictEqual(both.get(TRACE_B));
      expect(await current().loadEncodedSpansOfTraces([])).toEqual(new Map());
    });

    it('hands the pending spans over a row at a time, in the order loadPendingSpans gives them', async () => {
      await current().appendSpans([plainSpan(TRACE_A, 1), plainSpan(TRACE_B, 2), plainSpan(TRACE_A, 3)]);
      await current().appendSpans(Array.from({ length: 1200 }, (_, i) => plainSpan([TRACE_C, TRACE_B][i % 2], 10 + i)));
      // 1100 traces of one span: a row each, more rows than a store may read at once.
      const many = Array.from({ length: 1100 }, (_, i) => `e${(i + 1).toString(16).padStart(31, '0')}`);
      await current().appendSpans(many.map((traceId, i) => plainSpan(traceId, 5000 + i)));
      await current().releaseTraces([TRACE_B]);
      const pieces: SpanData[][] = [];
      await current().forEachPendingSpans((spans) => pieces.push(spans));
      expect(pieces.map((piece) => piece.length)).toEqual([2, 600, ...many.map(() => 1)]);
      expect(pieces.flat()).toStrictEqual(await current().loadPendingSpans());
      const none: SpanData[][] = [];
      await current().releaseTraces([TRACE_A, TRACE_C, ...many]);
      await current().forEachPendingSpans((spans) => none.push(spans));
      expect(none).toEqual([]);
    });

    it('stores a span sent twice twice (deduplication is the processor’s job)', async () => {
      await current().appendSpans([plainSpan(TRACE_A, 1)]);
      await current().appendSpans([plainSpan(TRACE_A, 1)]);
      expect(await current().loadTraceSpans(TRACE_A)).toHaveLength(2);
    });

    it('answers empty for an empty store, an empty append and an unknown trace', async () => {
      await current().appendSpans([]);
      expect(await current().loadPendingSpans()).toEqual([]);
      expect(await current().loadTraceSpans(TRACE_C)).toEqual([]);
    });

    it('takes a large batch in one call', async () => {
      const spans = Array.from({ length: 5000 }, (_, i) => plainSpan([TRACE_A, TRACE_B, TRACE_C][i % 3], i));
      await current().appendSpans(spans);
      const pending = await current().loadPendingSpans();
      expect(pending).toHaveLength(5000);
      expect([...pending].sort(byId)).toStrictEqual([...spans].sort(byId));
      expect(await current().loadTraceSpans(TRACE_B)).toHaveLength(1667);
    });

    it('releases only the traces named, and tolerates unknown and empty lists', async () => {
      await current().appendSpans([plainSpan(TRACE_A, 1), plainSpan(TRACE_B, 2), plainSpan(TRACE_C, 3)]);
      await current().releaseTraces([]);
      await current().releaseTraces([TRACE_A, 'f'.repeat(32)]);
      expect((await current().loadPendingSpans()).map((s) => s.traceId).sort()).toEqual([TRACE_B, TRACE_C]);
      expect(await current().loadTraceSpans(TRACE_A)).toEqual([]);
      await current().releaseTraces([TRACE_B, TRACE_C]);
      expect(await current().loadPendingSpans()).toEqual([]);
    });

    it('stores spans of a released trace that arrive later, as pending again', async () => {
      await current().appendSpans([plainSpan(TRACE_A, 1)]);
      await current().releaseTraces([TRACE_A]);
      await current().appendSpans([plainSpan(TRACE_A, 2)]);
      expect((await current().loadTraceSpans(TRACE_A)).map((s) => s.attributes.n)).toEqual([2]);
    });

    it('stores a batch received as OTLP/protobuf as received, in append order beside decoded spans', async () => {
      // Two interactions of ten spans, their traces interleaved in one scope as an SDK exports them.
      const { batch } = receiveTraceRequest(serializeProtobuf(await buildRealisticSpans(20)), 'protobuf');
      const received = batch.spans();
      const [first, second] = batch.byTrace!.traceIds;
      const of = (traceId: string) => received.filter((span) => span.traceId === traceId);
      const before = plainSpan(first, 1);
      const after = plainSpan(first, 2);
      await current().appendSpans([before]);
      await current().appendSpans(batch);
      await current().appendSpans([after]);
      expect(await current().loadTraceSpans(first)).toStrictEqual([before, ...of(first), after]);
      const both = await current().loadSpansOfTraces([second, first]);
      expect(both.get(first)).toStrictEqual([before, ...of(first), after]);
      expect(both.get(second)).toStrictEqual(of(second));
      expect(of(second)).toHaveLength(10);
      await current().releaseTraces([first]);
      await reopen();
      expect(await current().loadPendingSpans()).toStrictEqual(of(second));
    });

    it('keeps unreleased spans and drops released ones across a close and reopen', async () => {
      const kept = [richSpan(TRACE_B, '3'.repeat(16)), plainSpan(TRACE_C, 7)];
      await current().appendSpans([plainSpan(TRACE_A, 1), ...kept]);
      await current().releaseTraces([TRACE_A]);
      await reopen();
      const pending = await current().loadPendingSpans();
      expect([...pending].sort(byId)).toStrictEqual([...kept].sort(byId));
      expect(await current().loadTraceSpans(TRACE_A)).toEqual([]);
      expect(await current().loadTraceSpans(TRACE_B)).toStrictEqual([kept[0]]);
    });
  });

  describe('late spans', () => {
    const lateSpans = async (interactionId: string) =>
      (await current().loadLateSpans(interactionId)).map((late) => late.span);

    it('keeps late spans apart from pending spans, across a reopen', async () => {
      const record = makeRecord({ endTime: '2025-06-01T10:00:00.000Z', traceId: TRACE_A });
      await current().putInteractions([record]);
      const late = [richSpan(TRACE_A, '9'.repeat(16), record.spanId), plainSpan(TRACE_A, 42)];
      await current().putLateSpans([]);
      await current().putLateSpans(late.map((span) => ({ interactionId: record.interactionId, span })));
      expect(await current().loadPendingSpans()).toEqual([]);
      expect(await current().loadTraceSpans(TRACE_A)).toEqual([]);
      expect(await current().getInteraction(record.interactionId)).toStrictEqual(record);
      expect(await lateSpans(record.interactionId)).toStrictEqual(late);
      expect(await lateSpans('other')).toEqual([]);
      await reopen();
      expect(await lateSpans(record.interactionId)).toStrictEqual(late);
      expect(await current().loadPendingSpans()).toEqual([]);
    });

    it('reads back each interaction’s late spans, in the order they arrived, named by interaction', async () => {
      const first = makeRecord({ endTime: '2025-06-01T10:00:00.000Z', traceId: TRACE_A });
      const second = makeRecord({ endTime: '2025-06-01T10:01:00.000Z', traceId: TRACE_B });
      await current().putInteractions([first, second]);
      await current().putLateSpans([
        { interactionId: first.interactionId, span: plainSpan(TRACE_A, 1) },
        { interactionId: second.interactionId, span: plainSpan(TRACE_B, 2) },
        { interactionId: first.interactionId, span: plainSpan(TRACE_A, 3) },
      ]);
      await current().putLateSpans([{ interactionId: first.interactionId, span: plainSpan(TRACE_A, 4) }]);
      const loaded = await current().loadLateSpans(first.interactionId);
      expect(loaded.map((late) => late.interactionId)).toEqual(Array(3).fill(first.interactionId));
      expect(loaded.map((late) => late.span.attributes.n)).toEqual([1, 3, 4]);
      expect(await current().loadLateSpans(second.interactionId)).toStrictEqual([
        { interactionId: second.interactionId, span: plainSpan(TRACE_B, 2) },
      ]);
      // A late span is not pending: releasing its trace leaves it, and it is never replayed.
      await current().releaseTraces([TRACE_A, TRACE_B]);
      expect((await lateSpans(first.interactionId)).map((span) => span.attributes.n)).toEqual([1, 3, 4]);
    });
  });
}
