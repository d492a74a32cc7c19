/**
 * The PostgreSQL ledger schema as a list of migrations, applied in order at startup inside one
 * transaction that first takes a transaction-scoped advisory lock: several replicas starting at
 * once on a fresh database wait for each other, and each finds the schema at the last version.
 * `schema_version` holds the version reached. A database whose version is newer than the last
 * migration known here was written by a newer Evalon: opening it fails rather than guessing.
 *
 * Tables live in the connection's current schema (the first of its `search_path`, usually
 * `public`). Never edit a migration that has shipped; append a new one.
 */
import type pg from 'pg';
import { checkMigrationList, type Migration, migrationError, migrationsToApply } from '../core/migrations.ts';
import { refuseWhileOlderReplicasRun } from './replica.ts';

/** `pg_advisory_xact_lock` key of the migration lock: "Evalon" in ASCII. */
export const MIGRATION_LOCK_KEY = 0x45_76_61_6c_6f_6e;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'replicas, pending spans, interactions, late spans, evaluation queue, evaluations',
    sql: `
      -- The collector replicas sharing this ledger (replica.ts): who holds each replica id and
      -- when it last showed it was alive. backend_pid is the server process of the connection
      -- that holds the id's advisory lock.
      CREATE TABLE replicas (
        replica_id text PRIMARY KEY,
        pid integer NOT NULL,
        host text NOT NULL,
        backend_pid integer NOT NULL,
        started_at timestamptz NOT NULL,
        heartbeat_at timestamptz NOT NULL
      );

      -- The write-ahead path: one row per (appendSpans call, trace), spans encoded together
      -- (span-codec.ts). id orders a trace's rows as they were appended. replica_id is the
      -- replica that received them: each replica replays and releases its own rows only.
      CREATE TABLE pending_spans (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        replica_id text NOT NULL,
        trace_id text NOT NULL,
        span_count integer NOT NULL,
        codec smallint NOT NULL,
        spans bytea NOT NULL
      );
      CREATE INDEX pending_spans_by_trace ON pending_spans (trace_id, replica_id);
      -- Out of line, uncompressed: pglz on every row cost more than the bytes it saved.
      ALTER TABLE pending_spans ALTER COLUMN spans SET STORAGE EXTERNAL;

      -- Completed interactions: the record as JSON (kept verbatim), plus the columns queries
      -- filter and sort on. seq is the order of recording (pageInteractions' cursor);
      -- awaiting_intake is true until enqueueEvaluations({ intake }) names the interaction.
      -- recorded_by is the replica that recorded it (split-trace detection, replica.ts).
      CREATE TABLE interactions (
        interaction_id text PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        trace_id text NOT NULL,
        recorded_by text NOT NULL DEFAULT '',
        agent_id text NOT NULL,
        conversation_id text,
        end_time_ms bigint NOT NULL,
        awaiting_intake boolean NOT NULL DEFAULT true,
        record json NOT NULL
      );
      CREATE INDEX interactions_by_end ON interactions (end_time_ms, interaction_id);
      CREATE INDEX interactions_by_agent ON interactions (agent_id, end_time_ms, interaction_id);
      CREATE INDEX interactions_by_conversation ON interactions (conversation_id, end_time_ms, interaction_id);
      CREATE INDEX interactions_by_trace ON interactions (trace_id);
      CREATE INDEX interactions_awaiting_intake ON interactions (seq) WHERE awaiting_intake;

      -- Spans that arrived after their interaction was completed, one row each.
      CREATE TABLE late_spans (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        interaction_id text NOT NULL,
        trace_id text NOT NULL,
        span_id text NOT NULL,
        received_at_ms bigint NOT NULL,
        codec smallint NOT NULL,
        span bytea NOT NULL
      );
      CREATE INDEX late_spans_by_interaction ON late_spans (interaction_id);

      -- Triggered evaluations, durable until their outcome is recorded. seq is the queue order,
      -- from a sequence (never reused). One row per (interaction, evaluator, version). The lease
      -- columns are for replicas sharing the queue (not used yet).
      CREATE SEQUENCE evaluation_queue_seq;
      CREATE TABLE evaluation_queue (
        seq bigint PRIMARY KEY DEFAULT nextval('evaluation_queue_seq'),
        evaluation_id text NOT NULL,
        interaction_id text NOT NULL,
        evaluator_id text NOT NULL,
        evaluator_version text NOT NULL,
        triggered_at_ms bigint NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        started_at_ms bigint,
        task json NOT NULL,
        progress json,
        lease_owner text,
        lease_until timestamptz,
        UNIQUE (interaction_id, evaluator_id, evaluator_version)
      );
      ALTER SEQUENCE evaluation_queue_seq OWNED BY evaluation_queue.seq;

      -- Recorded outcomes: at most one per (interaction, evaluator, version), the record as JSON.
      CREATE TABLE evaluations (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        evaluation_id text NOT NULL,
        interaction_id text NOT NULL,
        evaluator_id text NOT NULL,
        evaluator_version text NOT NULL,
        agent_id text NOT NULL,
        outcome text NOT NULL,
        completed_at_ms bigint NOT NULL,
        record json NOT NULL,
        UNIQUE (interaction_id, evaluator_id, evaluator_version)
      );
    `,
  },
  {
    version: 2,
    description: 'conversations, their turns and revisions',
    sql: `
      -- One row per conversation (conversation id, agent id): the current revision, open or the
      -- last that ended, and what is known of it (core/conversation-turns.ts keeps it).
      CREATE TABLE conversations (
        conversation_id text NOT NULL,
        agent_id text NOT NULL,
        revision integer NOT NULL,
        open boolean NOT NULL,
        start_time_ms bigint NOT NULL,
        last_start_ms bigint NOT NULL,
        last_interaction_id text NOT NULL,
        last_failed boolean NOT NULL,
        last_roles json NOT NULL,
        last_activity_ms bigint NOT NULL,
        turns integer NOT NULL,
        end_requested_ms bigint,
        end_due_ms bigint,
        end_time_ms bigint,
        end_reason text,
        PRIMARY KEY (conversation_id, agent_id)
      );
      -- Idle and end detection read only what is due, whatever the number of open conversations.
      CREATE INDEX conversations_idle ON conversations (last_activity_ms) WHERE open;
      CREATE INDEX conversations_end_due ON conversations (end_due_ms) WHERE open AND end_due_ms IS NOT NULL;
      CREATE INDEX conversations_by_activity ON conversations (last_activity_ms, conversation_id, agent_id);
      CREATE INDEX conversations_by_agent ON conversations (agent_id, last_activity_ms);

      -- The interactions of each conversation, in order of start time, with the revision each joined.
      CREATE TABLE conversation_turns (
        conversation_id text NOT NULL,
        agent_id text NOT NULL,
        start_time_ms bigint NOT NULL,
        interaction_id text NOT NULL,
        revision integer NOT NULL,
        PRIMARY KEY (conversation_id, agent_id, start_time_ms, interaction_id)
      );

      -- Revisions that are over, one row each, in the order they closed (seq), until taken in.
      CREATE TABLE conversation_revisions (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        conversation_id text NOT NULL,
        agent_id text NOT NULL,
        revision integer NOT NULL,
        start_time_ms bigint NOT NULL,
        end_time_ms bigint NOT NULL,
        end_reason text NOT NULL,
        turns integer NOT NULL,
        last_interaction_id text NOT NULL,
        last_failed boolean NOT NULL,
        last_roles json NOT NULL,
        awaiting_intake boolean NOT NULL DEFAULT true,
        UNIQUE (conversation_id, agent_id, revision)
      );
      CREATE INDEX conversation_revisions_awaiting ON conversation_revisions (seq) WHERE awaiting_intake;
      CREATE INDEX conversation_revisions_by_end ON conversation_revisions (end_time_ms, seq);

      -- Interactions recorded before conversations existed become the turns of conversations that
      -- are over (revision 1, taken in, never evaluated: backfill does that); a later turn reopens
      -- one as revision 2, which covers them all.
      CREATE TEMP TABLE migrated_turns ON COMMIT DROP AS
        SELECT conversation_id, agent_id, interaction_id, end_time_ms,
          coalesce(round(extract(epoch FROM (record ->> 'startTime')::timestamptz) * 1000)::bigint, end_time_ms)
            AS start_time_ms,
          coalesce((record ->> 'failed')::boolean, false) AS failed,
          coalesce(record -> 'roles', '[]'::json)::text AS roles
        FROM interactions
        WHERE conversation_id IS NOT NULL AND conversation_id <> '' AND record -> 'flowId' IS NULL;
      INSERT INTO conversation_turns (conversation_id, agent_id, start_time_ms, interaction_id, revision)
        SELECT conversation_id, agent_id, start_time_ms, interaction_id, 1 FROM migrated_turns;
      INSERT INTO conversations (conversation_id, agent_id, revision, open, start_time_ms, last_start_ms,
          last_interaction_id, last_failed, last_roles, last_activity_ms, turns, end_time_ms, end_reason)
        SELECT DISTINCT ON (conversation_id, agent_id) conversation_id, agent_id, 1, false,
          min(start_time_ms) OVER w, start_time_ms, interaction_id, failed, roles::json,
          max(end_time_ms) OVER w, count(*) OVER w, max(end_time_ms) OVER w, 'idle'
        FROM migrated_turns
        WINDOW w AS (PARTITION BY conversation_id, agent_id)
        ORDER BY conversation_id, agent_id, start_time_ms DESC, interaction_id DESC;
      INSERT INTO conversation_revisions (conversation_id, agent_id, revision, start_time_ms, end_time_ms,
          end_reason, turns, last_interaction_id, last_failed, last_roles, awaiting_intake)
        SELECT conversation_id, agent_id, 1, start_time_ms, end_time_ms, 'idle', turns, last_interaction_id,
          last_failed, last_roles, false
        FROM conversations ORDER BY end_time_ms, conversation_id, agent_id;
    `,
  },
  {
    version: 3,
    description: 'signal waits, reviews, evaluations by evaluator',
    sql: `
      -- Durable evaluations parked on a signal (awaiting_signal, due at wake_at_ms: the deadline,
      -- or the delivery of the signal), and the signal delivered to an evaluation (one at most).
      ALTER TABLE evaluation_queue
        ADD COLUMN awaiting_signal text,
        ADD COLUMN wake_at_ms bigint,
        ADD COLUMN signal_name text,
        ADD COLUMN signal_payload json,
        ADD COLUMN signal_at_ms bigint;
      CREATE INDEX evaluation_queue_by_evaluation ON evaluation_queue (evaluation_id);
      -- What is due reads only the parked rows; the queue read skips them by its own index.
      CREATE INDEX evaluation_queue_wake ON evaluation_queue (wake_at_ms) WHERE awaiting_signal IS NOT NULL;
      CREATE INDEX evaluation_queue_runnable ON evaluation_queue (seq) WHERE awaiting_signal IS NULL;

      -- The human review queue: one row per review evaluation (review_id is its evaluation id).
      -- status is open, done or expired (claimed is an open review with a live claim); sort_ms
      -- orders the lists: the creation time while open, the completion time after.
      CREATE TABLE reviews (
        review_id text PRIMARY KEY,
        entry_id text NOT NULL,
        agent_id text NOT NULL,
        interaction_id text NOT NULL,
        conversation_id text,
        status text NOT NULL,
        created_at_ms bigint NOT NULL,
        due_at_ms bigint,
        sort_ms bigint NOT NULL,
        claimed_by text,
        claimed_until_ms bigint,
        completed_at_ms bigint,
        review json NOT NULL,
        record json
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
    version: 4,
    description: 'retention: tombstones of pruned interactions and conversations, turns by interaction',
    sql: `
      -- Interactions pruned while their evaluations are kept (retention keep_evaluations): the API
      -- answers 410 from these until the evaluations go with them.
      CREATE TABLE pruned_interactions (
        interaction_id text PRIMARY KEY,
        trace_id text NOT NULL,
        agent_id text NOT NULL,
        end_time_ms bigint NOT NULL,
        pruned_at_ms bigint NOT NULL
      );
      CREATE INDEX pruned_interactions_by_end ON pruned_interactions (end_time_ms, interaction_id);

      -- A conversation pruned while its evaluations are kept keeps its row, marked (its revision
      -- count names its evaluations); a new turn clears the mark.
      ALTER TABLE conversations ADD COLUMN pruned_at_ms bigint;
      CREATE INDEX conversations_pruned ON conversations (last_activity_ms, conversation_id, agent_id)
        WHERE pruned_at_ms IS NOT NULL;

      -- Whether an interaction is a conversation's turn (retention prunes turns with their conversation).
      CREATE INDEX conversation_turns_by_interaction ON conversation_turns (interaction_id);

      -- Retention deletes old rows in batches all day: vacuum these tables once 2% of their rows are
      -- dead (the default, 20%, leaves a large table with a fifth of dead space before new rows can
      -- reuse it).
      ALTER TABLE interactions SET (autovacuum_vacuum_scale_factor = 0.02);
      ALTER TABLE late_spans SET (autovacuum_vacuum_scale_factor = 0.02);
      ALTER TABLE evaluations SET (autovacuum_vacuum_scale_factor = 0.02);
      ALTER TABLE conversation_turns SET (autovacuum_vacuum_scale_factor = 0.02);
    `,
  },
  {
    version: 5,
    description: 'the intake mark in a table of its own: recording no longer rewrites every new interaction',
    sql: `
      -- Interactions recorded and not yet taken in for evaluation: a row inserted with the
      -- interaction, deleted at intake. As a flag on interactions, marking the intake rewrote each
      -- new row and every index of the table (a partial index depended on the flag), a tenth of the
      -- server's time under sustained ingest.
      CREATE TABLE interaction_intake (
        interaction_id text PRIMARY KEY,
        seq bigint NOT NULL
      );
      CREATE INDEX interaction_intake_by_seq ON interaction_intake (seq);
      INSERT INTO interaction_intake (interaction_id, seq)
        SELECT interaction_id, seq FROM interactions WHERE awaiting_intake;
      DROP INDEX interactions_awaiting_intake;
      ALTER TABLE interactions DROP COLUMN awaiting_intake;
    `,
  },
  {
    version: 6,
    description: 'interaction records stored uncompressed',
    sql: `
      -- Storing records was half of the server's time under sustained ingest, and pglz a third
      -- of that, to save a quarter of the space on conversation text: records of 3.9 KB went in
      -- at 51 instead of 109 µs a row, taking 4.2 instead of 3.1 KB each. Applies to rows written
      -- from now on. A server built with lz4 compresses fast: there,
      -- ALTER COLUMN record SET STORAGE EXTENDED, ALTER COLUMN record SET COMPRESSION lz4.
      ALTER TABLE interactions ALTER COLUMN record SET STORAGE EXTERNAL;
    `,
  },
  {
    version: 7,
    description: 'interaction records kept as text',
    sql: `
      -- The record's JSON as text: as json, the server parsed every record to check it on the way
      -- in (a third of storing one, and storing is what one replica's recording waits on), though
      -- every record is JSON.stringify's output and is parsed again by whoever reads it. Queries
      -- that look inside a record cast it (record::json). Rewrites the table once, under its lock:
      -- on a large ledger this upgrade takes a while (about the time of copying the table).
      -- Storage goes back to the type's (EXTENDED: pglz, inline when it then fits). Without the
      -- parse, compressing costs less than moving the bytes it saves: end to end (bench:scale)
      -- 31 400 against 25 000 spans/s with repetitive text, 19 100 against 19 300 with varied text.
      ${refuseWhileOlderReplicasRun('it stores interaction records as text, which they would misread')}
      ALTER TABLE interactions ALTER COLUMN record TYPE text, ALTER COLUMN record SET STORAGE EXTENDED;
    `,
  },
  {
    version: 8,
    description: 'interaction records compressed by the collector',
    sql: `
      -- Records compressed by the collector (raw DEFLATE of the JSON, core/record-codec.ts) in
      -- record_deflated; record (text) keeps the rows written before, and each row has exactly one
      -- of the two. The server compressing each record (pglz) was most of storing it, and storing
      -- records most of the server's time under sustained ingest: a record of 6.7 KB went in at
      -- 21 instead of 54 µs of the server's time, as 730 bytes the server stores as they are
      -- (EXTERNAL: never compressed again; inline up to a page, toast_tuple_target). Adding the
      -- column rewrites nothing: the upgrade is immediate on any ledger. Queries that look inside a
      -- record read it in the collector.
      ${refuseWhileOlderReplicasRun('it stores interaction records compressed, which they would misread')}
      ALTER TABLE interactions ADD COLUMN record_deflated bytea, ALTER COLUMN record DROP NOT NULL,
        ADD CONSTRAINT interactions_one_record CHECK (num_nonnulls(record, record_deflated) = 1) NOT VALID;
      ALTER TABLE interactions ALTER COLUMN record_deflated SET STORAGE EXTERNAL;
      ALTER TABLE interactions SET (toast_tuple_target = 8160);
    `,
  },
];

/**
 * Brings the database to the last version of `migrations` and returns it, in one transaction on
 * `client`. `where` names the ledger in messages (its redacted URL).
 */
export async function migrate(
  client: pg.ClientBase,
  where: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number> {
  checkMigrationList(migrations);
  const latest = migrations.length;
  await client.query('BEGIN');
  try {
    // The lock comes before anything else: a second replica waits here until the first commits.
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    // Created only when missing: a user without CREATE on the schema can open a migrated ledger.
    const { rows: found } = await client.query<{ exists: boolean }>(
      "SELECT to_regclass('schema_version') IS NOT NULL AS exists",
    );
    if (!found[0].exists) await client.query('CREATE TABLE schema_version (version integer NOT NULL)');
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM schema_version',
    );
    const current = Number(rows[0]?.version ?? 0);
    for (const migration of migrationsToApply(migrations, current, where, 'database')) {
      try {
        await client.query(migration.sql);
      } catch (error) {
        throw migrationError(where, migration, error);
      }
    }
    if (current < latest) {
      await client.query('DELETE FROM schema_version');
      await client.query('INSERT INTO schema_version (version) VALUES ($1)', [latest]);
    }
    await client.query('COMMIT');
    return latest;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
