/**
 * The size of the PostgreSQL ledger: Evalon's tables (every table its migrations create), in the
 * connection's current schema.
 *
 * On disk, a table is `pg_total_relation_size` (heap, TOAST, indexes). PostgreSQL does not give
 * deleted rows' space back to the file system: (auto)vacuum makes it free for new rows of the same
 * table, and the table keeps its size. So the ledger's *used* bytes, the figure `max_size` bounds,
 * are estimated from its live rows: their stored bytes (`pg_column_size` of each row: compressed,
 * TOASTed values counted at their stored size) plus the table's indexes in proportion. A table of
 * fewer than `EXACT_BELOW_ROWS` rows (by the statistics) is read whole; a larger one by a sample of
 * its pages, scaled to its live rows (`n_live_tup`). What is not used is `freeBytes`.
 */
import type pg from 'pg';
import type { LedgerSize } from '../ledger-retention.ts';
import { MIGRATIONS } from './schema.ts';

/** Below this many live rows (statistics), a table's row bytes are summed exactly. */
export const EXACT_BELOW_ROWS = 100_000;
/** Rows a large table's sample aims at. */
const SAMPLE_ROWS = 2_000;

/** Every table Evalon's migrations create, and the version table. */
export const LEDGER_TABLES: readonly string[] = [
  ...new Set([
    'schema_version',
    ...MIGRATIONS.flatMap((migration) => [...migration.sql.matchAll(/CREATE TABLE (\w+)/g)].map((match) => match[1])),
  ]),
];

interface TableRow {
  relname: string;
  total: string;
  table_bytes: string;
  index_bytes: string;
  live: string | null;
}

export async function measurePostgresLedger(
  pool: pg.Pool,
  options: { exactBelowRows?: number } = {},
): Promise<LedgerSize> {
  const exactBelow = options.exactBelowRows ?? EXACT_BELOW_ROWS;
  // A fresh statistics snapshot: prunes this store committed are counted at once (see prune-units.ts).
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await pool.query<TableRow>(
    `SELECT c.relname, pg_total_relation_size(c.oid) AS total, pg_table_size(c.oid) AS table_bytes,
       pg_indexes_size(c.oid) AS index_bytes, s.n_live_tup AS live
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
     WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname = ANY($1::text[])`,
    [LEDGER_TABLES],
  );
  let total = 0;
  let used = 0;
  for (const row of rows) {
    const tableTotal = Number(row.total);
    total += tableTotal;
    const heap = await liveRowBytes(pool, row.relname, Number(row.live ?? 0), exactBelow);
    const indexShare = Number(row.index_bytes) / Math.max(1, Number(row.table_bytes));
    used += Math.min(tableTotal, Math.round(heap * (1 + indexShare)));
  }
  return { usedBytes: used, freeBytes: Math.max(0, total - used) };
}

/** The stored bytes of a table's live rows: summed exactly when small, else sampled and scaled. */
async function liveRowBytes(pool: pg.Pool, table: string, liveEstimate: number, exactBelow: number): Promise<number> {
  const name = `"${table}"`;
  if (liveEstimate < exactBelow || liveEstimate === 0) {
    const { rows } = await pool.query<{ bytes: string }>(
      `SELECT coalesce(sum(pg_column_size(t.*)), 0) AS bytes FROM ${name} t`,
    );
    return Number(rows[0].bytes);
  }
  const first = Math.min(100, Math.max(0.0001, (100 * SAMPLE_ROWS) / liveEstimate));
  for (let percent = first; ; percent = Math.min(100, percent * 10)) {
    const { rows } = await pool.query<{ n: string; bytes: string }>(
      `SELECT count(*) AS n, coalesce(sum(pg_column_size(t.*)), 0) AS bytes FROM ${name} t TABLESAMPLE SYSTEM ($1)`,
      [percent],
    );
    const sampled = Number(rows[0].n);
    if (sampled > 0) return Math.round((Number(rows[0].bytes) / sampled) * liveEstimate);
    if (percent >= 100) return 0;
  }
}
