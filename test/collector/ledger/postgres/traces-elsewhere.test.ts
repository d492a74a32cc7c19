/**
 * The per-tick check for traces other replicas hold reads through the trace indexes, also on a
 * ledger PostgreSQL has no statistics for yet (a new one, in its first minutes): a scan of the
 * interactions table every tick grew with the ledger. While no other replica has claimed an id on
 * the ledger, it reads nothing at all.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresLedgerStore } from '../../../../collector/ledger/postgres/postgres-store.ts';
import { ELSEWHERE_SQL, queryTracesElsewhere } from '../../../../collector/ledger/postgres/traces-elsewhere.ts';
import { createTestDatabase, type TestDatabase } from '../../../helpers/postgres.ts';

const ROWS = 20_000;
const traceId = (n: number) => n.toString(16).padStart(32, '0');

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}
const scans = (node: PlanNode): string[] => [
  ...(node['Node Type'] === 'Seq Scan' ? [node['Relation Name'] ?? '?'] : []),
  ...(node.Plans ?? []).flatMap(scans),
];

describe('traces held by other replicas, on a ledger without statistics', () => {
  let database: TestDatabase;
  let store: PostgresLedgerStore;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await createPostgresStore({ url: database.url, replicaId: 'replica-a' });
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
    // As a new ledger is: many rows, and no ANALYZE yet (autovacuum kept away for the test).
    await pool.query('ALTER TABLE interactions SET (autovacuum_enabled = false)');
    await pool.query('ALTER TABLE pending_spans SET (autovacuum_enabled = false)');
    await pool.query(
      `INSERT INTO interactions (interaction_id, trace_id, recorded_by, agent_id, end_time_ms, record)
       SELECT 'i' || n, lpad(to_hex(n), 32, '0'), 'replica-b', 'agent', n, '{}'
       FROM generate_series(1, ${ROWS}) AS n`,
    );
    // Replica B claimed its id before it recorded them (replica.ts).
    await pool.query(
      `INSERT INTO replicas (replica_id, pid, host, backend_pid, started_at, heartbeat_at)
       VALUES ('replica-b', 1, 'b', 1, now(), now())`,
    );
  });
  afterAll(async () => {
    await pool?.end();
    await store?.close();
    await database?.drop();
  });

  it('probes the indexes, never scans interactions or pending spans', async () => {
    const ids = Array.from({ length: 450 }, (_, i) => traceId(ROWS - i * 7));
    const { rows } = await pool.query(`EXPLAIN (FORMAT JSON) ${ELSEWHERE_SQL}`, [ids, 'replica-a']);
    const plan = (rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan;
    expect(scans(plan)).not.toContain('interactions');
    expect(scans(plan)).not.toContain('pending_spans');
  });

  it('finds what the other replica recorded, and nothing for traces it did not', async () => {
    const elsewhere = await queryTracesElsewhere(pool, 'replica-a', [traceId(42), traceId(ROWS + 1)]);
    expect([...elsewhere.traces.keys()]).toEqual([traceId(42)]);
    expect(elsewhere.traces.get(traceId(42))).toMatchObject({
      pendingOn: [],
      recorded: [{ interactionId: 'i42', replicaId: 'replica-b' }],
    });
  });

  it('reads no index while no other replica has claimed an id on the ledger', async () => {
    const ids = Array.from({ length: 450 }, (_, i) => traceId(ROWS - i * 7));
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`DELETE FROM replicas WHERE replica_id <> 'replica-a'`);
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${ELSEWHERE_SQL}`, [ids, 'replica-a']);
      const plan = (rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan;
      const probed = (node: PlanNode): number =>
        (node['Relation Name'] && node['Node Type'] !== 'Seq Scan' ? (node['Actual Loops'] ?? 0) : 0) +
        (node.Plans ?? []).reduce((sum, child) => sum + probed(child), 0);
      expect(probed(plan)).toBe(0);
      const { rows: found } = await client.query(ELSEWHERE_SQL, [[traceId(42)], 'replica-a']);
      expect(found).toEqual([]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
