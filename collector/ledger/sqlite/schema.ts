/**
 * The SQLite ledger schema as a list of migrations, applied in order at startup inside one
 * transaction. `schema_version` holds the version reached. A file whose version is newer than the
 * last migration known here was written by a newer Evalon: opening it fails rather than guessing.
 *
 * Never edit a migration that has shipped; append a new one.
 */
import type { DatabaseSync } from 'node:sqlite';
import { checkMigrationList, type Migration, migrationError, migrationsToApply } from '../core/migrations.ts';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'pending spans, interactions, late spans',
    sql: `
      -- The write-ahead path: one row per (appendSpans call, trace), spans encoded together.
      CREATE TABLE pending_spans (
        id INTEGER PRIMARY KEY,
        trace_id TEXT NOT NULL,
        span_count INTEGER NOT NULL,
        codec INTEGER NOT NULL,
        spans BLOB NOT NULL
      );
      CREATE INDEX pending_spans_by_trace ON pending_spans (trace_id);

      -- Completed interactions: the record as JSON, plus the columns queries filter and sort on.
      CREATE TABLE interactions (
        interaction_id TEXT NOT NULL PRIMARY KEY,
        trace_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        conversation_id TEXT,
        end_time_ms INTEGER NOT NULL,
        record TEXT NOT NULL
      );
      CREATE INDEX interactions_by_end ON interactions (end_time_ms, interaction_id);
      CREATE INDEX interactions_by_agent ON interactions (agent_id, end_time_ms, interaction_id);
      CREATE INDEX interactions_by_conversation ON interactions (conversation_id, end_time_ms, interaction_id);
      CREATE INDEX interactions_by_trace ON interactions (trace_id);

      -- Spans that arrived after their interaction was completed, one row each.
      CREATE TABLE late_spans (
        id INTEGER PRIMARY KEY,
        interaction_id TEXT NOT NULL,
        trace_id TEXT NOT NULL,
        span_id TEXT NOT NULL,
        received_at_ms INTEGER NOT NULL,
        codec INTEGER NOT NULL,
        span BLOB NOT NULL
      );
      CREATE INDEX late_spans_by_interaction ON late_spans (interaction_id);
    `,
  },
  {
    version: 2,
    description: 'evaluation queue, evaluations, evaluation intake mark',
    sql: `
      -- Triggered evaluations, durable until their outcome is recorded. seq is the queue order
      -- (AUTOINCREMENT: never reused after a delete). One row per (interaction, evaluator, version).
      CREATE TABLE evaluation_queue (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        evaluation_id TEXT NOT NULL,
        interaction_id TEXT NOT NULL,
        evaluator_id TEXT NOT NULL,
        evaluator_version TEXT NOT NULL,
        triggered_at_ms INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        started_at_ms INTEGER,
        task TEXT NOT NULL,
        UNIQUE (interaction_id, evaluator_id, evaluator_version)
      );

      -- Recorded outcomes: at most one per (interaction, evaluator, version), the record as JSON.
      -- Read by interaction (the unique key's index); no other index, so each outcome is cheap.
      CREATE TABLE evaluations (
        id INTEGER PRIMARY KEY,
        evaluation_id TEXT NOT NULL,
        interaction_id TEXT NOT NULL,
        evaluator_id TEXT NOT NULL,
        evaluator_version TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        outcome TEXT NOT NULL,
        completed_at_ms INTEGER NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (interaction_id, evaluator_id, evaluator_version)
      );

      -- The highest interactions.rowid whose triggers have been decided. Interactions already in
      -- the ledger when this migration runs count as taken in (backfill evaluates old ones).
      CREATE TABLE evaluation_intake (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        through_rowid INTEGER NOT NULL
      );
      INSERT INTO evaluation_intake (id, through_rowid) SELECT 1, coalesce(max(rowid), 0) FROM interactions;
    `,
  },
  {
    version: 3,
    description: 'durable evaluation progress',
    sql: `
      -- A durable evaluation's position and state (JSON DurableProgress), saved after every step.
      ALTER TABLE evaluation_queue ADD COLUMN progress TEXT;
    `,
  },
  {
    version: 4,
    description: 'evaluation leases',
    sql: `
      -- Who started an evaluation and until when no one else may (one process per SQLite file,
      -- but the store keeps the same contract as the shared PostgreSQL ledger).
      ALTER TABLE evaluation_queue ADD COLUMN lease_owner TEXT;
      ALTER TABLE evaluation_queue ADD COLUMN lease_until_ms INTEGER;
    `,
  },
  {
    version: 5,
    description: 'conversations, their turns and revisions',
    sql: `
      -- One row per conversation (conversation id, agent id): the current revision, open or the
      -- last that ended, and what is known of it (core/conversation-turns.ts keeps it).
      CREATE TABLE conversations (
        conversation_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        open INTEGER NOT NULL,
        start_time_ms INTEGER NOT NULL,
        last_start_ms INTEGER NOT NULL,
        last_interaction_id TEXT NOT NULL,
        last_failed INTEGER NOT NULL,
        last_roles TEXT NOT NULL,
        last_activity_ms INTEGER NOT NULL,
        turns INTEGER NOT NULL,
        end_requested_ms INTEGER,
        end_due_ms INTEGER,
        end_time_ms INTEGER,
        end_reason TEXT,
        PRIMARY KEY (conversation_id, agent_id)
      );
      -- Idle and end detection read only what is due, whatever the number of open conversations.
      CREATE INDEX conversations_idle ON conversations (last_activity_ms) WHERE open = 1;
      CREATE INDEX conversations_end_due ON conversations (end_due_ms) WHERE open = 1 AND end_due_ms IS NOT NULL;
      CREATE INDEX conversations_by_activity ON conversations (last_activity_ms, conversation_id, agent_id);
      CREATE INDEX conversations_by_agent ON conversations (agent_id, last_activity_ms);

      -- The interactions of each conversation, in order of start time, with the revision each joined.
      CREATE TABLE conversation_turns (
        conversation_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        start_time_ms INTEGER NOT NULL,
        interaction_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        PRIMARY KEY (conversation_id, agent_id, start_time_ms, interaction_id)
      ) WITHOUT ROWID;

      -- Revisions that are over, one row each, in the order they closed (seq), until taken in.
      CREATE TABLE conversation_revisions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        start_time_ms INTEGER NOT NULL,
        end_time_ms INTEGER NOT NULL,
        end_reason TEXT NOT NULL,
        turns INTEGER NOT NULL,
        last_interaction_id TEXT NOT NULL,
        last_failed INTEGER NOT NULL,
        last_roles TEXT NOT NULL,
        awaiting_intake INTEGER NOT NULL DEFAULT 1,
        UNIQUE (conversation_id, agent_id, revision)
      );
      CREATE INDEX conversation_revisions_awaiting ON conversation_revisions (seq) WHERE awaiting_intake = 1;
      CREATE INDEX conversation_revisions_by_end ON conversation_revisions (end_time_ms, seq);

      -- Interactions recorded before conversations existed become the turns of conversations that
      -- are over (revision 1, taken in, never evaluated: backfill does that); a later turn reopens
      -- one as revision 2, which covers them all.
      CREATE TEMP TABLE migrated_turns AS
        SELECT conversation_id, agent_id, interaction_id, end_time_ms,
          coalesce(CAST(round(unixepoch(json_extract(record, '$.startTime'), 'subsec') * 1000) AS INTEGER),
            end_time_ms) AS start_time_ms,
          CASE WHEN json_extract(record, '$.failed') THEN 1 ELSE 0 END AS failed,
          coalesce(json_extract(record, '$.roles'), '[]') AS roles
        FROM interactions
        WHERE conversation_id IS NOT NULL AND conversation_id <> '' AND json_extract(record, '$.flowId') IS NULL;
      CREATE INDEX temp.migrated_turns_by_key ON migrated_turns (conversation_id, agent_id, start_time_ms);
      INSERT INTO conversation_turns (conversation_id, agent_id, start_time_ms, interaction_id, revision)
        SELECT conversation_id, agent_id, start_time_ms, interaction_id, 1 FROM migrated_turns;
      INSERT INTO conversations (conversation_id, agent_id, revision, open, start_time_ms, last_start_ms,
          last_interaction_id, last_failed, last_roles, last_activity_ms, turns, end_time_ms, end_reason)
        SELECT t.conversation_id, t.agent_id, 1, 0, min(t.start_time_ms), last.start_time_ms, last.interaction_id,
          last.failed, last.roles, max(t.end_time_ms), count(*), max(t.end_time_ms), 'idle'
        FROM migrated_turns t
        JOIN migrated_turns last ON last.interaction_id = (
          SELECT l.interaction_id FROM migrated_turns l
          WHERE l.conversation_id = t.conversation_id AND l.agent_id = t.agent_id
          ORDER BY l.start_time_ms DESC, l.interaction_id DESC LIMIT 1)
        GROUP BY t.conversation_id, t.agent_id;
      INSERT INTO conversation_revisions (conversation_id, agent_id, revision, start_time_ms, end_time_ms,
          end_reason, turns, last_interaction_id, last_failed, last_roles, awaiting_intake)
        SELECT conversation_id, agent_id, 1, start_time_ms, end_time_ms, 'idle', turns, last_interaction_id,
          last_failed, last_roles, 0
        FROM conversations ORDER BY end_time_ms, conversation_id, agent_id;
      DROP TABLE migrated_turns;
    `,
  },
  {
    version: 6,
    description: 'signal waits, reviews, evaluations by evaluator',
    sql: `
      -- Durable evaluations parked on a signal (awaiting_signal, due at wake_at_ms: the deadline,
      -- or the delivery of the signal), and the signal delivered to an evaluation (one at most).
      ALTER TABLE evaluation_queue ADD COLUMN awaiting_signal TEXT;
      ALTER TABLE evaluation_queue ADD COLUMN wake_at_ms INTEGER;
      ALTER TABLE evaluation_queue ADD COLUMN signal_name TEXT;
      ALTER TABLE evaluation_queue ADD COLUMN signal_payload TEXT;
      ALTER TABLE evaluation_queue ADD COLUMN signal_at_ms INTEGER;
      CREATE INDEX evaluation_queue_by_evaluation ON evaluation_queue (evaluation_id);
      -- What is due reads only the parked rows; the queue read skips them by its own index.
      CREATE INDEX evaluation_queue_wake ON evaluation_queue (wake_at_ms) WHERE awaiting_signal IS NOT NULL;
      CREATE INDEX evaluation_queue_runnable ON evaluation_queue (seq) WHERE awaiting_signal IS NULL;

      -- The human review queue: one row per review evaluation (review_id is its evaluation id).
      -- status is open, done or expired (claimed is an open review with a live claim); sort_ms
      -- orders the lists: the creation time while open, the completion time after.
      CREATE TABLE reviews (
        review_id TEXT PRIMARY KEY,
        entry_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        interaction_id TEXT NOT NULL,
        conversation_id TEXT,
        status TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        due_at_ms INTEGER,
        sort_ms INTEGER NOT NULL,
        claimed_by TEXT,
        claimed_until_ms INTEGER,
        completed_at_ms INTEGER,
        review TEXT NOT NULL,
        record TEXT
      );
      CREATE INDEX reviews_by_status ON reviews (status, sort_ms, review_id);
      CREATE INDEX reviews_by_agent ON reviews (agent_id, status, sort_ms, review_id);
      CREATE INDEX reviews_open_by_interaction ON reviews (interaction_id) WHERE status = 'open';
      CREATE INDEX reviews_open_by_conversation ON reviews (conversation_id, agent_id) WHERE status = 'open';

      -- An entry's latest outcomes, newest first (agreement between entries, rebuilt at start).
      CREATE INDEX evaluations_by_evaluator ON evaluations (evaluator_id, id);
    `,
  },
  {
    version: 7,
    description: 'retention: tombstones of pruned interactions and conversations, turns by interaction',
    sql: `
      -- Interactions pruned while their evaluations are kept (retention keep_evaluations): the API
      -- answers 410 from these until the evaluations go with them.
      CREATE TABLE pruned_interactions (
        interaction_id TEXT NOT NULL PRIMARY KEY,
        trace_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        end_time_ms INTEGER NOT NULL,
        pruned_at_ms INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX pruned_interactions_by_end ON pruned_interactions (end_time_ms, interaction_id);

      -- A conversation pruned while its evaluations are kept keeps its row, marked (its revision
      -- count names its evaluations); a new turn clears the mark.
      ALTER TABLE conversations ADD COLUMN pruned_at_ms INTEGER;
      CREATE INDEX conversations_pruned ON conversations (last_activity_ms, conversation_id, agent_id)
        WHERE pruned_at_ms IS NOT NULL;

      -- Whether an interaction is a conversation's turn (retention prunes turns with their conversation).
      CREATE INDEX conversation_turns_by_interaction ON conversation_turns (interaction_id);
    `,
  },
];

/**
 * Brings the database to the last version of `migrations` and returns it. `where` names the
 * database in messages (its path).
 */
export function migrate(db: DatabaseSync, where: string, migrations: readonly Migration[] = MIGRATIONS): number {
  checkMigrationList(migrations);
  const latest = migrations.length;
  // IMMEDIATE takes the write lock first, so two processes opening a new file do not both migrate.
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const row = db.prepare('SELECT max(version) AS version FROM schema_version').get() as
      | { version: number | null }
      | undefined;
    const current = Number(row?.version ?? 0);
    for (const migration of migrationsToApply(migrations, current, where, 'file')) {
      try {
        db.exec(migration.sql);
      } catch (error) {
        throw migrationError(where, migration, error);
      }
    }
    if (current < latest) {
      db.exec('DELETE FROM schema_version');
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(latest);
    }
    db.exec('COMMIT');
    return latest;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
