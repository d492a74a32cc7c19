import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import type { InteractionRecord } from '../../../../src/model/records.ts';
import { compressRecordLz4, uncompressRecordLz4 } from '../../../../collector/ledger/core/record-codec.ts';
import { interactionRow } from '../../../../collector/ledger/core/rows.ts';
import { migrate, MIGRATIONS } from '../../../../collector/ledger/sqlite/schema.ts';
import type { SqliteLedgerStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { useTempStores } from './temp-stores.ts';
import { makeRecord } from '../../../helpers/ledger-fixtures.ts';

interface StoredRow {
  interaction_id: string;
  kind: 'text' | 'blob';
  record: string | Uint8Array;
}

describe('interaction records in the SQLite ledger', () => {
  const { ledgerPath, open } = useTempStores('evalon-sqlite-records-');
  function stored(path: string): StoredRow[] {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      return db
        .prepare('SELECT interaction_id, typeof(record) AS kind, record FROM interactions ORDER BY rowid')
        .all() as unknown as StoredRow[];
    } finally {
      db.close();
    }
  }
  function corrupt(path: string, interactionId: string, record: string | Uint8Array): void {
    const db = new DatabaseSync(path);
    try {
      db.prepare('UPDATE interactions SET record = ? WHERE interaction_id = ?').run(record, interactionId);
    } finally {
      db.close();
    }
  }
  /** Every read of interaction records, each answering with the records it read. */
  async function readsOf(store: SqliteLedgerStore, record: InteractionRecord): Promise<InteractionRecord[][]> {
    const conversation = await store.getConversation(record.conversationId!, record.agentId);
    return [
      [(await store.getInteraction(record.interactionId))!],
      await store.listInteractions({ agentId: record.agentId }),
      (await store.pageInteractions({ limit: 100 })).records,
      await store.loadInteractionsAwaitingIntake(100),
      conversation!.interactions,
    ];
  }
  // A record whose text repeats itself, as agents' do (the input comes back in the transcript).
  const longReply = 'Your flight TP541 to Lisbon leaves at 09:40 from terminal 1. '.repeat(40);

  for (const writer of ['thread', 'inline'] as const) {
    it(`stores records as LZ4 blocks and reads them back as they were (${writer} writer)`, async () => {
      const path = ledgerPath();
      const store = open(path, writer);
      const records = [
        makeRecord({ endTime: '2026-12-01T10:00:00.000Z', finalResponseText: longReply, roles: ['booking'] }),
        makeRecord({ endTime: '2026-12-01T10:00:01.000Z', roles: ['booking', 'refunds'] }),
      ];
      expect(await store.putInteractions(records)).toEqual(new Set(records.map((r) => r.interactionId)));
      const rows = stored(path);
      expect(rows.map((row) => row.kind)).toEqual(['blob', 'blob']);
      expect(uncompressRecordLz4(rows[0].record as Uint8Array)).toBe(JSON.stringify(records[0]));
      expect((rows[0].record as Uint8Array).byteLength).toBeLessThan(JSON.stringify(records[0]).length / 3);
      for (const read of await readsOf(store, records[0])) {
        expect(read).toContainEqual(records[0]);
        if (read.length > 1) expect(read).toContainEqual(records[1]);
      }
      // The newest record's roles.
      expect(await store.listAgents()).toMatchObject([{ agentId: 'travel-agent', roles: ['booking', 'refunds'] }]);
    });
  }

  it('stores what the recorder thread compressed as it is, and leaves the rows their JSON', async () => {
    const path = ledgerPath();
    const store = open(path);
    const record = makeRecord({ endTime: '2026-12-01T10:00:00.000Z', finalResponseText: longReply });
    const row = interactionRow(record, path);
    const json = Buffer.from(row.json as string);
    const compressed = compressRecordLz4(json);
    await store.putEncodedInteractions([{ ...row, json, compressed }]);
    expect(Buffer.from(stored(path)[0].record as Uint8Array).equals(Buffer.from(compressed))).toBe(true);
    expect(json.toString()).toBe(JSON.stringify(record));
    expect(await store.getInteraction(record.interactionId)).toStrictEqual(record);
  });

  it('opens a ledger whose records are JSON text, and reads them beside the compressed ones', async () => {
    const path = ledgerPath();
    const older = makeRecord({ endTime: '2026-11-30T10:00:00.000Z', roles: ['triage'] });
    // A ledger as an Evalon that kept records as text left it.
    const before = new DatabaseSync(path);
    before.exec('PRAGMA page_size = 16384');
    before.exec('PRAGMA journal_mode = WAL');
    migrate(
      before,
      path,
      MIGRATIONS.slice(
        0,
        MIGRATIONS.findIndex((m) => m.version === 8),
      ),
    );
    before
      .prepare(
        'INSERT INTO interactions (interaction_id, trace_id, agent_id, conversation_id, end_time_ms, record) ' +
          'VALUES (?, ?, ?, NULL, ?, ?)',
      )
      .run(older.interactionId, older.traceId, older.agentId, Date.parse(older.endTime), JSON.stringify(older));
    before.close();

    const store = open(path);
    const newer = makeRecord({ endTime: '2026-12-01T10:00:00.000Z' });
    expect(await store.listAgents()).toMatchObject([{ agentId: older.agentId, roles: ['triage'] }]);
    await store.putInteractions([newer]);
    expect(stored(path).map((row) => [row.interaction_id, row.kind])).toEqual([
      [older.interactionId, 'text'],
      [newer.interactionId, 'blob'],
    ]);
    expect(await store.getInteraction(older.interactionId)).toStrictEqual(older);
    expect(await store.listInteractions({})).toStrictEqual([newer, older]);
    expect((await store.pageInteractions({ limit: 10 })).records).toStrictEqual([older, newer]);
    expect(await store.listAgents()).toMatchObject([{ agentId: older.agentId, roles: newer.roles }]);
    const db = new DatabaseSync(path, { readOnly: true });
    expect(db.prepare('SELECT version FROM schema_version').get()).toEqual({ version: MIGRATIONS.length });
    db.close();
  });

  it('fails a read that meets a record that does not decompress or is not JSON, naming the ledger', async () => {
    const path = ledgerPath();
    const store = open(path);
    const [first, second] = [
      makeRecord({ endTime: '2026-12-01T10:00:00.000Z' }),
      makeRecord({ endTime: '2026-12-01T10:00:01.000Z' }),
    ];
    await store.putInteractions([first, second]);
    await store.close();
    corrupt(path, first.interactionId, Buffer.from([200, 0, 0, 0, 1, 2, 3]));
    corrupt(path, second.interactionId, '{"interactionId": ');
    const reopened = open(path);
    await expect(reopened.getInteraction(first.interactionId)).rejects.toThrow(
      `ledger ${path}: a stored interaction record does not decompress (`,
    );
    await expect(reopened.getInteraction(second.interactionId)).rejects.toThrow(
      `ledger ${path}: a stored interaction record is not JSON (`,
    );
    await expect(reopened.listInteractions({})).rejects.toThrow(/a stored interaction record is not JSON/);
  });
});
