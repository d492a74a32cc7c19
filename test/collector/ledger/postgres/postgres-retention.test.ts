/**
 * Retention on the PostgreSQL store beyond the shared contract: a large table's used bytes are
 * estimated from a sample of its pages and its live rows; the tables retention deletes from are
 * vacuumed sooner; no space is given back by the store itself; a turn recorded while its
 * conversation is being pruned brings the conversation back rather than losing it.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { measurePostgresLedger } from '../../../../collector/ledger/postgres/ledger-size.ts';
import type { PostgresLedgerStore } from '../../../../collector/ledger/postgres/postgres-store.ts';
import { adminQuery } from '../../../helpers/postgres.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { ended, recorded } from '../retention-contract.ts';
import { postgresTestStores } from './postgres-test-stores.ts';

describe('PostgreSQL retention', () => {
  const stores = postgresTestStores();
  const pools: pg.Pool[] = [];
  // Registered after the stores' hook: runs before it.
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.end();
  });
  async function open(): Promise<{ store: PostgresLedgerStore; url: string }> {
    const { url } = await stores.freshDatabase();
    return { store: await stores.open(url), url };
  }

  it("estimates a large table's used bytes from a sample and its live rows, near the exact figure", async () => {
    const { store, url } = await open();
    const records = Array.from({ length: 3_000 }, (_, i) =>
      ended(i % 50, { finalResponseText: `reply ${i} `.repeat(40) }),
    );
    for (let at = 0; at < records.length; at += 500) await recorded(store, records.slice(at, at + 500));
    const pool = new pg.Pool({ connectionString: url });
    pools.push(pool);
    // The statistics the estimate scales by: the inserting connections report them within seconds.
    await pollUntil(
      async () => {
        const { rows } = await adminQuery(
          url,
          "SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'interactions'",
        );
        return Number(rows[0]?.n_live_tup) === records.length ? true : undefined;
      },
      { timeoutMs: 30_000, what: 'the statistics of the interactions table' },
    );
    const exact = await measurePostgresLedger(pool);
    const sampled = await measurePostgresLedger(pool, { exactBelowRows: 0 });
    expect(sampled.usedBytes).toBeGreaterThan(exact.usedBytes * 0.75);
    expect(sampled.usedBytes).toBeLessThan(exact.usedBytes * 1.25);
    expect(sampled.usedBytes + sampled.freeBytes).toBe(exact.usedBytes + exact.freeBytes);
  });

  it('vacuums the tables retention deletes from after 2% of their rows, and gives no space back itself', async () => {
    const { store, url } = await open();
    const { rows } = await adminQuery(
      url,
      `SELECT relname, reloptions FROM pg_class
       WHERE relname IN ('interactions', 'late_spans', 'evaluations', 'conversation_turns') ORDER BY relname`,
    );
    expect(rows).toEqual(
      ['conversation_turns', 'evaluations', 'interactions', 'late_spans'].map((relname) => ({
        relname,
        reloptions: [
          'autovacuum_vacuum_scale_factor=0.02',
          // Compressed records stay inline up to a page (schema.ts, version 8).
          ...(relname === 'interactions' ? ['toast_tuple_target=8160'] : []),
        ],
      })),
    );
    expect(await store.reclaimSpace({ maxBytes: 1_000_000 })).toEqual({ bytes: 0, incremental: false });
  });

  it('brings back a conversation pruned while one of its turns was being recorded', async () => {
    const { store, url } = await open();
    const first = ended(40, { conversationId: 'c-race' });
    await recorded(store, [first]);
    // A pruner's transaction holds the conversation's row...
    const pruner = new pg.Client({ connectionString: url });
    await pruner.connect();
    try {
      await pruner.query('BEGIN');
      await pruner.query("SELECT * FROM conversations WHERE conversation_id = 'c-race' FOR UPDATE");
      // ...while a turn is recorded: it waits on that row...
      const next = ended(0, { conversationId: 'c-race' });
      const recording = store.putInteractions([next]);
      await pollUntil(
        async () => {
          const { rows } = await adminQuery(
            url,
            "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'",
          );
          return rows.length > 0 ? true : undefined;
        },
        { what: 'the turn to wait on the conversation' },
      );
      // ...which the pruner deletes.
      await pruner.query("DELETE FROM conversation_turns WHERE conversation_id = 'c-race'");
      await pruner.query("DELETE FROM conversations WHERE conversation_id = 'c-race'");
      await pruner.query('COMMIT');
      await recording;
      expect(await store.getConversation('c-race', next.agentId)).toMatchObject({
        revision: 1,
        open: true,
        interactionIds: [next.interactionId],
      });
    } finally {
      await pruner.end();
    }
  });
});
