/**
 * The ledger as `bench/scale.ts` reads it: counts, evaluation times and, to diagnose a stall, the
 * queue's rows and the PostgreSQL sessions. SQLite is read through fresh read-only connections,
 * PostgreSQL through a small pool of its own.
 */
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';

export interface EvaluationTimes {
  triggeredAt: number;
  startedAt: number;
  completedAt: number;
  failed: boolean;
}
export interface LedgerReader {
  /** What the server's sessions on this database are doing (PostgreSQL; diagnosing a stall). */
  activity(): Promise<string[]>;
  count(table: 'interactions' | 'evaluations' | 'evaluation_queue'): Promise<number>;
  /** Evaluation rows against distinct (interaction, evaluator, version): equal when recorded exactly once. */
  distinctEvaluations(): Promise<number>;
  /** Recorded interactions whose triggers the evaluation processor has not yet decided. */
  awaitingIntake(): Promise<number>;
  /** The queue's rows by lease owner and attempts (diagnosing a stall). */
  queueRows(): Promise<unknown[]>;
  evaluations(): Promise<EvaluationTimes[]>;
  close(): Promise<void>;
}

function evaluationTimes(record: {
  triggeredAt: string;
  startedAt: string;
  completedAt: string;
  outcome: { type: string };
}): EvaluationTimes {
  return {
    triggeredAt: Date.parse(record.triggeredAt),
    startedAt: Date.parse(record.startedAt),
    completedAt: Date.parse(record.completedAt),
    failed: record.outcome.type === 'failed',
  };
}
const QUEUE_ROWS = 'SELECT lease_owner, attempts, count(*) AS n FROM evaluation_queue GROUP BY 1, 2';
const DISTINCT =
  'SELECT count(*) AS n FROM (SELECT DISTINCT interaction_id, evaluator_id, evaluator_version FROM evaluations) AS d';

export function sqliteReader(path: string): LedgerReader {
  // A fresh read-only connection for every read: WAL readers never block the collector's writer.
  const read = <T>(sql: string): T[] => {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  };
  return {
    count: async (table) => Number(read<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)[0].n),
    distinctEvaluations: async () => Number(read<{ n: number }>(DISTINCT)[0].n),
    evaluations: async () =>
      read<{ record: string }>('SELECT record FROM evaluations').map((row) => evaluationTimes(JSON.parse(row.record))),
    activity: async () => [],
    awaitingIntake: async () =>
      Number(
        read<{ n: number }>(
          'SELECT count(*) AS n FROM interactions WHERE rowid > (SELECT through_rowid FROM evaluation_intake)',
        )[0].n,
      ),
    queueRows: async () => read(QUEUE_ROWS),
    close: async () => {},
  };
}

export function postgresReader(url: string): LedgerReader {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // An idle connection the server ends (it stops at the end of a run) is not a failed read: reads
  // reject on their own errors. Unhandled, it was an uncaught exception that ended the run.
  pool.on('error', () => {});
  return {
    count: async (table) => Number((await pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n),
    distinctEvaluations: async () => Number((await pool.query(DISTINCT)).rows[0].n),
    evaluations: async () =>
      (await pool.query('SELECT record FROM evaluations')).rows.map((row) => evaluationTimes(row.record)),
    queueRows: async () => (await pool.query(QUEUE_ROWS)).rows,
    awaitingIntake: async () => Number((await pool.query('SELECT count(*) AS n FROM interaction_intake')).rows[0].n),
    activity: async () =>
      (
        await pool.query(
          `SELECT application_name, state, wait_event_type, wait_event,
              now() - xact_start AS in_transaction, left(query, 70) AS query
       FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        )
      ).rows.map((row) => JSON.stringify(row)),
    close: () => pool.end(),
  };
}

/** Runs one statement on a short-lived connection (the benchmark creates its databases so). */
export async function adminQuery(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}
