/**
 * The ledger store contract: one suite that every `LedgerStore` must pass (SQLite and PostgreSQL).
 * A store's test file calls `describeLedgerStoreContract` with a factory for a fresh, empty store
 * on its own storage.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../../collector/ledger/store.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { encodeInteraction } from '../../../collector/ledger/interaction-store.ts';
import { makeRecord, plainSpan, TRACE_A } from '../../helpers/ledger-fixtures.ts';
import { describeConversationStoreContract } from './conversation-store-contract.ts';
import { describeEvaluationSkipsContract } from './evaluation-skips-contract.ts';
import { describeEvaluationStoreContract } from './evaluation-store-contract.ts';
import { describeSpanStoreContract } from './span-store-contract.ts';
import type { SqlReader } from './helpers/ledger-consistency.ts';
import { describeRetentionContract } from './retention-contract.ts';
import { describeRetentionConversationsContract } from './retention-conversations-contract.ts';
import { describeWaitAndReviewContract } from './wait-and-review-contract.ts';

export interface StoreHarness<S extends LedgerStore = LedgerStore> {
  store: S;
  /** A new store on the same storage (the caller has closed the previous one). */
  reopen(): Promise<S>;
  /** Closes what is still open and removes the storage. */
  cleanup(): Promise<void>;
  /** Runs one query on the storage directly, beside the store (the consistency checks). */
  sql: SqlReader;
}

export function describeLedgerStoreContract<S extends LedgerStore = LedgerStore>(
  name: string,
  createStore: () => Promise<StoreHarness<S>>,
): void {
  describe(`LedgerStore contract: ${name}`, () => {
    let harness: StoreHarness<S>;
    let store: S;

    beforeEach(async () => {
      harness = await createStore();
      store = harness.store;
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    async function reopen(): Promise<S> {
      await store.close();
      store = await harness.reopen();
      return store;
    }

    async function putAll(records: InteractionRecord[]): Promise<void> {
      await store.putInteractions(records);
    }

    describe('interactions', () => {
      it('returns a stored record exactly, and undefined for an unknown id', async () => {
        const record = makeRecord({
          endTime: '2025-06-01T10:00:00.000Z',
          failed: true,
          failureSummary: 'TimeoutError',
          flowId: 'x-y',
        });
        await putAll([record]);
        expect(await store.getInteraction(record.interactionId)).toStrictEqual(record);
        expect(await store.getInteraction(`${'0'.repeat(32)}-${'0'.repeat(16)}`)).toBeUndefined();
      });

      it('is idempotent by interaction id: a second put does not rewrite the first', async () => {
        const first = makeRecord({ endTime: '2025-06-01T10:00:00.000Z', finalResponseText: 'first' });
        const replay = { ...first, finalResponseText: 'second', failed: true, completion: 'timeout' as const };
        await putAll([first]);
        await putAll([replay]);
        await putAll([replay, replay]);
        expect(await store.getInteraction(first.interactionId)).toStrictEqual(first);
        expect(await store.listInteractions({})).toStrictEqual([first]);
      });

      it('stores records encoded elsewhere (encodeInteraction) as putInteractions stores them', async () => {
        const a = makeRecord({ endTime: '2025-06-01T10:00:00.000Z', failed: true, failureSummary: 'TimeoutError' });
        const b = makeRecord({
          endTime: '2025-06-01T10:00:01.000Z',
          conversationId: 'conv-encoded',
          // Beyond ASCII, a quote, a backslash and a NUL: the record's text comes back exactly.
          finalResponseText: 'Réponse «ok» — 东京 🚀 "q" \\ \u0000 end',
        });
        const stored = await store.putEncodedInteractions([a, b].map((record) => encodeInteraction(record, 'test')));
        expect(stored).toEqual(new Set([a.interactionId, b.interactionId]));
        expect(await store.getInteraction(a.interactionId)).toStrictEqual(a);
        expect(await store.listInteractions({ conversationId: 'conv-encoded' })).toStrictEqual([b]);
        expect(await store.putEncodedInteractions([encodeInteraction(a, 'test')])).toEqual(new Set());
        // A batch of recorded and new ids (a restart replaying): the new ones are stored and named.
        const c = makeRecord({ endTime: '2025-06-01T10:00:02.000Z', conversationId: 'conv-encoded' });
        const mixed = await store.putEncodedInteractions([b, c, a].map((record) => encodeInteraction(record, 'test')));
        expect(mixed).toEqual(new Set([c.interactionId]));
        expect(await store.listInteractions({ conversationId: 'conv-encoded' })).toStrictEqual([c, b]);
        expect(await store.putEncodedInteractions([])).toEqual(new Set());
      });

      it('keeps the first of two records with one id in the same call', async () => {
        const first = makeRecord({ endTime: '2025-06-01T10:00:00.000Z', finalResponseText: 'first' });
        await putAll([first, { ...first, finalResponseText: 'second' }]);
        expect((await store.getInteraction(first.interactionId))?.finalResponseText).toBe('first');
      });

      it('answers a put with the ids it stored, not those already there or repeated in it', async () => {
        const a = makeRecord({ endTime: '2025-06-01T10:00:00.000Z' });
        const b = makeRecord({ endTime: '2025-06-01T11:00:00.000Z' });
        const c = makeRecord({ endTime: '2025-06-01T12:00:00.000Z' });
        expect(await store.putInteractions([a])).toEqual(new Set([a.interactionId]));
        expect(await store.putInteractions([b, a, c, b])).toEqual(new Set([b.interactionId, c.interactionId]));
        expect(await store.putInteractions([a, b, c])).toEqual(new Set());
        expect(await store.putInteractions([])).toEqual(new Set());
      });

      it('tells which ids are stored', async () => {
        const a = makeRecord({ endTime: '2025-06-01T10:00:00.000Z' });
        const b = makeRecord({ endTime: '2025-06-01T11:00:00.000Z' });
        await putAll([a, b]);
        expect(await store.existingInteractionIds([])).toEqual(new Set());
        expect(await store.existingInteractionIds([a.interactionId, 'nope', b.interactionId])).toEqual(
          new Set([a.interactionId, b.interactionId]),
        );
        expect(await store.existingInteractionIds(['nope'])).toEqual(new Set());
      });

      it('keeps records across a close and reopen', async () => {
        const record = makeRecord({ endTime: '2025-06-01T10:00:00.000Z' });
        await putAll([record]);
        await reopen();
        expect(await store.getInteraction(record.interactionId)).toStrictEqual(record);
        expect(await store.existingInteractionIds([record.interactionId])).toEqual(new Set([record.interactionId]));
      });
    });

    describe('listInteractions', () => {
      const minutes = (n: number) => new Date(Date.parse('2025-06-01T10:00:00.000Z') + n * 60_000).toISOString();
      let records: InteractionRecord[];

      beforeEach(async () => {
        records = [
          makeRecord({ endTime: minutes(0), agentId: 'travel-agent', conversationId: 'conv-1' }),
          makeRecord({ endTime: minutes(5), agentId: 'refund-agent', conversationId: 'conv-1' }),
          makeRecord({ endTime: minutes(10), agentId: 'travel-agent', conversationId: 'conv-2' }),
          makeRecord({ endTime: minutes(15), agentId: 'travel-agent', conversationId: 'conv-1' }),
          makeRecord({ endTime: minutes(20), agentId: 'refund-agent' }),
        ];
        delete records[4].conversationId;
        // Stored out of order: the order of results comes from end times, not insertion.
        await putAll([records[2], records[0], records[4]]);
        await putAll([records[3], records[1]]);
      });

      const ids = (list: InteractionRecord[]) => list.map((r) => r.interactionId);

      it('lists newest first by end time', async () => {
        expect(ids(await store.listInteractions({}))).toEqual(ids([...records].reverse()));
      });

      it('filters by agent, by conversation, and by both', async () => {
        expect(ids(await store.listInteractions({ agentId: 'refund-agent' }))).toEqual(ids([records[4], records[1]]));
        expect(ids(await store.listInteractions({ conversationId: 'conv-1' }))).toEqual(
          ids([records[3], records[1], records[0]]),
        );
        expect(ids(await store.listInteractions({ agentId: 'travel-agent', conversationId: 'conv-1' }))).toEqual(
          ids([records[3], records[0]]),
        );
        expect(await store.listInteractions({ agentId: 'nobody' })).toEqual([]);
      });

      it('filters by end time at or after since, in any ISO-8601 offset', async () => {
        expect(ids(await store.listInteractions({ since: minutes(10) }))).toEqual(
          ids([records[4], records[3], records[2]]),
        );
        expect(ids(await store.listInteractions({ since: '2025-06-01T12:10:00+02:00' }))).toEqual(
          ids([records[4], records[3], records[2]]),
        );
        expect(ids(await store.listInteractions({ since: minutes(10.001) }))).toEqual(ids([records[4], records[3]]));
        expect(ids(await store.listInteractions({ agentId: 'travel-agent', since: minutes(1) }))).toEqual(
          ids([records[3], records[2]]),
        );
        expect(await store.listInteractions({ since: minutes(60) })).toEqual([]);
      });

      it('limits the count, keeping the newest', async () => {
        expect(ids(await store.listInteractions({ limit: 2 }))).toEqual(ids([records[4], records[3]]));
        expect(ids(await store.listInteractions({ limit: 1, agentId: 'travel-agent' }))).toEqual(ids([records[3]]));
      });

      it('returns records exactly as stored', async () => {
        const listed = await store.listInteractions({ conversationId: 'conv-2' });
        expect(listed).toStrictEqual([records[2]]);
      });

      it('rejects a limit that is not a positive integer, and a since that is not ISO-8601', async () => {
        for (const limit of [0, -1, 1.5, Number.NaN]) {
          await expect(store.listInteractions({ limit }), `limit ${limit}`).rejects.toThrow(/limit/);
        }
        for (const since of ['yesterday', '24h', '2025-13-45T00:00:00Z']) {
          await expect(store.listInteractions({ since }), `since ${since}`).rejects.toThrow(/since/);
        }
      });
    });

    describe('listInteractions limits', () => {
      it('returns 100 by default and at most 1000', async () => {
        const base = Date.parse('2025-06-01T00:00:00.000Z');
        const many = Array.from({ length: 1005 }, (_, i) =>
          makeRecord({ endTime: new Date(base + i * 1000).toISOString() }),
        );
        await putAll(many);
        const defaults = await store.listInteractions({});
        expect(defaults).toHaveLength(100);
        expect(defaults[0].interactionId).toBe(many[1004].interactionId);
        expect(await store.listInteractions({ limit: 5000 })).toHaveLength(1000);
        expect(await store.listInteractions({ limit: 1000 })).toHaveLength(1000);
      });
    });

    describeSpanStoreContract(() => store, reopen);
    describeEvaluationStoreContract(() => store, reopen);
    describeWaitAndReviewContract(() => store, reopen);
    describeConversationStoreContract(() => store, reopen);
    describeEvaluationSkipsContract(() => store, reopen);
    describeRetentionContract(
      () => store,
      (query) => harness.sql(query),
    );
    describeRetentionConversationsContract(
      () => store,
      (query) => harness.sql(query),
    );

    describe('close', () => {
      it('is safe twice, and later calls reject', async () => {
        await store.close();
        await store.close();
        await expect(store.loadPendingSpans()).rejects.toThrow(/closed/);
        await expect(store.appendSpans([plainSpan(TRACE_A, 1)])).rejects.toThrow(/closed/);
        await expect(store.getInteraction('x')).rejects.toThrow(/closed/);
      });

      it('keeps every write that resolved before close', async () => {
        const writes = Array.from({ length: 20 }, (_, i) => store.appendSpans([plainSpan(TRACE_A, i)]));
        await Promise.all(writes);
        await reopen();
        expect((await store.loadTraceSpans(TRACE_A)).map((s) => s.attributes.n)).toEqual(
          Array.from({ length: 20 }, (_, i) => i),
        );
      });
    });
  });
}
