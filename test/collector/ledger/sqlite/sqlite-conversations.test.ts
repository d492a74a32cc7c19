/**
 * What the SQLite store does for conversations beyond the shared contract: a ledger written before
 * conversations existed is upgraded with its conversations over (a later turn reopens one as
 * revision 2, which covers every turn), and the due queries read their partial indexes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { interactionRow } from '../../../../collector/ledger/core/rows.ts';
import { migrate, MIGRATIONS } from '../../../../collector/ledger/sqlite/schema.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { makeRecord } from '../../../helpers/ledger-fixtures.ts';

const at = (seconds: number) => new Date(Date.parse('2026-03-01T10:00:00.000Z') + seconds * 1000).toISOString();

describe('SQLite store: conversations', () => {
  const dirs: string[] = [];
  const stores: SqliteLedgerStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function tempPath(): string {
    const dir = mkdtempSync(join(tmpdir(), 'evalon-conversations-'));
    dirs.push(dir);
    return join(dir, 'ledger.db');
  }

  it('upgrades a ledger written before conversations: they are over, and reopen as revision 2', async () => {
    const path = tempPath();
    const old = new DatabaseSync(path);
    const before = MIGRATIONS.findIndex((migration) => migration.description.includes('conversations'));
    expect(before).toBeGreaterThan(0);
    migrate(old, path, MIGRATIONS.slice(0, before));
    const early = makeRecord({ conversationId: 'c-1', startTime: at(0), endTime: at(1), failed: true });
    const late = makeRecord({ conversationId: 'c-1', startTime: at(10), endTime: at(11), roles: ['support'] });
    const nested = makeRecord({ conversationId: 'c-1', startTime: at(5), endTime: at(6), flowId: early.interactionId });
    const insert = old.prepare(
      'INSERT INTO interactions (interaction_id, trace_id, agent_id, conversation_id, end_time_ms, record) ' +
        'VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const record of [late, early, nested]) {
      const row = interactionRow(record, path);
      insert.run(row.interactionId, row.traceId, row.agentId, row.conversationId, row.endTimeMs, row.json);
    }
    old.close();

    const store = createSqliteStore({ path });
    stores.push(store);
    expect(await store.getConversation('c-1', 'travel-agent')).toMatchObject({
      revision: 1,
      open: false,
      interactionIds: [early.interactionId, late.interactionId],
      startTime: at(0),
      lastActivityTime: at(11),
      endTime: at(11),
      endReason: 'idle',
      failed: false,
      turns: 2,
    });
    // Already over and never evaluated automatically: backfill evaluates the past.
    expect(await store.loadConversationsAwaitingIntake(10)).toEqual([]);
    expect(await store.listConversationRevisions('c-1', 'travel-agent')).toMatchObject([
      { revision: 1, lastInteractionId: late.interactionId, roles: ['support'] },
    ]);
    const next = makeRecord({ conversationId: 'c-1', startTime: at(100), endTime: at(101) });
    await store.putInteractions([next]);
    expect(await store.getConversation('c-1', 'travel-agent')).toMatchObject({
      revision: 2,
      open: true,
      interactionIds: [early.interactionId, late.interactionId, next.interactionId],
    });
  });

  it('reads only the due conversations through partial indexes (the cost does not grow with open ones)', async () => {
    const path = tempPath();
    await createSqliteStore({ path, writer: 'inline' }).close();
    const db = new DatabaseSync(path);
    try {
      const plan = (sql: string) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(0, 10) as { detail: string }[])
          .map((row) => row.detail)
          .join('; ');
      expect(
        plan(
          'SELECT conversation_id FROM conversations WHERE open = 1 AND last_activity_ms <= ? AND ' +
            'end_requested_ms IS NULL ORDER BY last_activity_ms LIMIT ?',
        ),
      ).toMatch(/USING INDEX conversations_idle/);
      expect(
        plan(
          'SELECT conversation_id FROM conversations WHERE open = 1 AND end_due_ms IS NOT NULL AND end_due_ms <= ? ' +
            'ORDER BY end_due_ms LIMIT ?',
        ),
      ).toMatch(/USING INDEX conversations_end_due/);
    } finally {
      db.close();
    }
  });
});
