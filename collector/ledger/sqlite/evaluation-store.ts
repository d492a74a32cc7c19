/**
 * The evaluation half of the SQLite store: the queue, recorded evaluations, the intake mark, and
 * the interaction reads the evaluation runtime, backfill and `evalon explain` need. Reads run on
 * the store's reader connection; writes go through the store's writer (`evaluation-writes.ts`).
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { EvaluationRecord, InteractionRecord } from '../../../src/model/records.ts';
import { followUpRow, isoMs, leaseRow, progressJson, queueRow, recordRow, requireText } from '../core/rows.ts';
import type { DurableProgress, EvaluationQueue, QueuedEvaluation } from '../evaluation-queue.ts';
import { normalizeCountQuery, normalizePageQuery } from '../interaction-query.ts';
import type { InteractionStore } from '../interaction-store.ts';
import { RECENT_EVALUATIONS_SLACK_MS, type RecordedEvaluations } from '../recorded-evaluations.ts';
import type { EnqueueResult, RecordResult } from './evaluation-writes.ts';
import type { WriterClient } from './writer-client.ts';
import { LedgerQueryError } from '../errors.ts';

export type EvaluationStoreMethods = EvaluationQueue &
  RecordedEvaluations &
  Pick<InteractionStore, 'pageInteractions' | 'countInteractions' | 'listAgents'>;

const DEFAULT_QUEUE_PAGE = 1000;
/** Recorded evaluations read per page by `loadRecentEvaluations`. */
const RECENT_PAGE = 1000;

export function createEvaluationStoreMethods(
  db: DatabaseSync,
  path: string,
  writer: WriterClient,
  ensureOpen: () => void,
): EvaluationStoreMethods {
  const selectAwaiting = db.prepare(`
    SELECT record FROM interactions
    WHERE rowid > (SELECT through_rowid FROM evaluation_intake WHERE id = 1) ORDER BY rowid LIMIT ?`);
  const QUEUED_COLUMNS = 'seq, task, attempts, started_at_ms, progress';
  // Parked evaluations (evaluation-waits.ts) are not queued work: loadDueEvaluations reads them.
  const selectQueued = db.prepare(
    `SELECT ${QUEUED_COLUMNS} FROM evaluation_queue WHERE seq > ? AND awaiting_signal IS NULL ORDER BY seq LIMIT ?`,
  );
  const selectClaimable = db.prepare(`
    SELECT ${QUEUED_COLUMNS} FROM evaluation_queue
    WHERE seq > ? AND awaiting_signal IS NULL AND (lease_owner IS NULL OR lease_owner = ? OR lease_until_ms <= ?)
    ORDER BY seq LIMIT ?`);
  const countQueued = db.prepare('SELECT count(*) AS n FROM evaluation_queue WHERE awaiting_signal IS NULL');
  const selectEntryPage = db.prepare(
    'SELECT id, record FROM evaluations WHERE evaluator_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
  );
  // Newest written first; the record only for the entries asked about (the others are read for their time).
  const selectRecent = db.prepare(`
    SELECT id, completed_at_ms,
      CASE WHEN evaluator_id IN (SELECT value FROM json_each(?)) THEN record END AS record
    FROM evaluations WHERE id < ? ORDER BY id DESC LIMIT ?`);
  const selectEvaluations = db.prepare(
    'SELECT record FROM evaluations WHERE interaction_id = ? ORDER BY completed_at_ms, id',
  );
  // A bare column beside max() comes from the row holding the maximum: the newest record's roles.
  const selectAgents = db.prepare(`
    SELECT agent_id, count(*) AS n, max(end_time_ms) AS last, json_extract(record, '$.roles') AS roles
    FROM interactions GROUP BY agent_id ORDER BY agent_id`);
  const statements = new Map<string, StatementSync>();

  function filtered(kind: 'page' | 'count', agent: boolean, since: boolean): StatementSync {
    const key = `${kind}${+agent}${+since}`;
    let statement = statements.get(key);
    if (!statement) {
      const conditions = [kind === 'page' && 'rowid > ?', agent && 'agent_id = ?', since && 'end_time_ms >= ?'].filter(
        Boolean,
      );
      const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
      statement = db.prepare(
        kind === 'page'
          ? `SELECT rowid, record FROM interactions ${where} ORDER BY rowid LIMIT ?`
          : `SELECT count(*) AS n FROM interactions ${where}`,
      );
      statements.set(key, statement);
    }
    return statement;
  }

  return {
    async enqueueEvaluations(evaluations, options = {}) {
      ensureOpen();
      const intake = options.intake ?? [];
      const conversationIntake = options.conversationIntake ?? [];
      if (evaluations.length === 0 && intake.length === 0 && conversationIntake.length === 0) return [];
      const rows = evaluations.map((evaluation) => queueRow(evaluation, path));
      const queued = (await writer.write({
        op: 'enqueueEvaluations',
        rows,
        intake: [...intake],
        ...(conversationIntake.length > 0
          ? {
              conversationIntake: conversationIntake.map(({ conversationId, agentId, revision }) => ({
                conversationId,
                agentId,
                revision,
              })),
            }
          : {}),
      })) as EnqueueResult;
      const seqs = new Map(queued);
      return evaluations.flatMap((evaluation) => {
        const seq = seqs.get(evaluation.evaluationId);
        return seq === undefined ? [] : [{ ...evaluation, attempts: 0, seq }];
      });
    },

    async loadInteractionsAwaitingIntake(limit) {
      ensureOpen();
      return (selectAwaiting.all(limit) as { record: string }[]).map(
        (row) => JSON.parse(row.record) as InteractionRecord,
      );
    },

    async loadQueuedEvaluations(options = {}) {
      ensureOpen();
      const afterSeq = options.afterSeq ?? 0;
      const limit = options.limit ?? DEFAULT_QUEUE_PAGE;
      const claimable = options.claimableBy;
      const rows = (
        claimable
          ? selectClaimable.all(afterSeq, claimable.owner, isoMs(claimable.at, 'claimableBy.at', 'query', path), limit)
          : selectQueued.all(afterSeq, limit)
      ) as {
        seq: number;
        task: string;
        attempts: number;
        started_at_ms: number | null;
        progress: string | null;
      }[];
      return rows.map((row) => {
        const queued = JSON.parse(row.task) as QueuedEvaluation;
        queued.seq = Number(row.seq);
        queued.attempts = Number(row.attempts);
        if (row.started_at_ms !== null) queued.startedAt = new Date(Number(row.started_at_ms)).toISOString();
        if (row.progress !== null) queued.progress = JSON.parse(row.progress) as DurableProgress;
        return queued;
      });
    },

    async countQueuedEvaluations() {
      ensureOpen();
      return Number((countQueued.get() as { n: number }).n);
    },

    async startEvaluations(starts, lease) {
      ensureOpen();
      if (starts.length === 0) return [];
      return (await writer.write({
        op: 'startEvaluations',
        starts: starts.map((s) => ({ seq: s.seq, startedAtMs: isoMs(s.startedAt, 'startedAt', `#${s.seq}`, path) })),
        ...(lease ? { lease: leaseRow(lease, path) } : {}),
      })) as number[];
    },

    async renewEvaluationLeases(lease, seqs) {
      ensureOpen();
      if (seqs.length === 0) return [];
      return (await writer.write({
        op: 'renewEvaluationLeases',
        lease: leaseRow(lease, path),
        seqs: [...seqs],
      })) as number[];
    },

    async releaseEvaluationLeases(owner, seqs) {
      ensureOpen();
      if (seqs.length === 0) return;
      await writer.write({
        op: 'releaseEvaluationLeases',
        owner: requireText(owner, 'lease owner', 'lease', path),
        seqs: [...seqs],
      });
    },

    async saveEvaluationProgress(updates) {
      ensureOpen();
      if (updates.length === 0) return;
      await writer.write({
        op: 'saveEvaluationProgress',
        updates: updates.map((u) => ({ seq: u.seq, json: progressJson(u.progress, u.seq, path) })),
      });
    },

    async recordEvaluations(records) {
      ensureOpen();
      if (records.length === 0) return [];
      const result = (await writer.write({
        op: 'recordEvaluations',
        rows: records.map((record) => recordRow(record, path)),
      })) as RecordResult;
      return result.written;
    },

    async recordEvaluationsWithFollowUps(records, followUps) {
      ensureOpen();
      if (records.length === 0) return { written: [], queued: [] };
      const result = (await writer.write({
        op: 'recordEvaluations',
        rows: records.map((record) => recordRow(record, path)),
        followUps: followUps.map((followUp) => followUpRow(followUp, path)),
      })) as RecordResult;
      const seqs = new Map(result.queued);
      return {
        written: result.written,
        queued: followUps.flatMap((followUp) => {
          const seq = seqs.get(followUp.evaluationId);
          return seq === undefined ? [] : [{ ...followUp, attempts: 0, seq }];
        }),
      };
    },

    async dropEvaluations(seqs, options) {
      ensureOpen();
      if (seqs.length === 0) return [];
      return (await writer.write({
        op: 'dropEvaluations',
        seqs: [...seqs],
        atMs: isoMs(options.at, 'at', 'drop', path),
        owner: options.owner ?? null,
      })) as number[];
    },

    async loadRecentEvaluations(query) {
      ensureOpen();
      const sinceMs = isoMs(query.since, 'since', 'recent evaluations', path);
      if (query.evaluatorIds.length === 0) return [];
      const ids = JSON.stringify(query.evaluatorIds);
      const found: EvaluationRecord[] = [];
      for (let before = Number.MAX_SAFE_INTEGER; ; ) {
        const rows = selectRecent.all(ids, before, RECENT_PAGE) as {
          id: number;
          completed_at_ms: number;
          record: string | null;
        }[];
        let inReach = false;
        for (const row of rows) {
          const completedAtMs = Number(row.completed_at_ms);
          if (completedAtMs >= sinceMs - RECENT_EVALUATIONS_SLACK_MS) inReach = true;
          if (row.record !== null && completedAtMs >= sinceMs) found.push(JSON.parse(row.record) as EvaluationRecord);
        }
        if (rows.length < RECENT_PAGE || !inReach) return found;
        before = Number(rows[rows.length - 1].id);
      }
    },

    async getEvaluations(interactionId) {
      ensureOpen();
      return (selectEvaluations.all(interactionId) as { record: string }[]).map(
        (row) => JSON.parse(row.record) as EvaluationRecord,
      );
    },

    async pageEntryEvaluations(query) {
      ensureOpen();
      const before = query.before === undefined ? Number.MAX_SAFE_INTEGER : Number(query.before);
      if (!Number.isSafeInteger(before))
        throw new LedgerQueryError(
          'before',
          `ledger query: before ${JSON.stringify(query.before)} is not one this store gave`,
        );
      const rows = selectEntryPage.all(query.evaluatorId, before, query.limit) as unknown as {
        id: number;
        record: string;
      }[];
      const records = rows.map((row) => JSON.parse(row.record) as EvaluationRecord);
      return rows.length === query.limit ? { records, next: String(rows[rows.length - 1]!.id) } : { records };
    },

    async pageInteractions(query) {
      ensureOpen();
      const { after, agentId, sinceMs, limit } = normalizePageQuery(query);
      const params: (string | number)[] = [after];
      if (agentId !== undefined) params.push(agentId);
      if (sinceMs !== undefined) params.push(sinceMs);
      params.push(limit);
      const rows = filtered('page', agentId !== undefined, sinceMs !== undefined).all(...params) as {
        rowid: number;
        record: string;
      }[];
      const records = rows.map((row) => JSON.parse(row.record) as InteractionRecord);
      return rows.length === limit ? { records, nextCursor: String(rows[rows.length - 1].rowid) } : { records };
    },

    async countInteractions(query) {
      ensureOpen();
      const { agentId, sinceMs } = normalizeCountQuery(query);
      const params: (string | number)[] = [];
      if (agentId !== undefined) params.push(agentId);
      if (sinceMs !== undefined) params.push(sinceMs);
      return Number(
        (filtered('count', agentId !== undefined, sinceMs !== undefined).get(...params) as { n: number }).n,
      );
    },

    async listAgents() {
      ensureOpen();
      const rows = selectAgents.all() as { agent_id: string; n: number; last: number; roles: string | null }[];
      return rows.map((row) => ({
        agentId: row.agent_id,
        roles: row.roles ? (JSON.parse(row.roles) as string[]) : [],
        interactions: Number(row.n),
        lastSeen: new Date(Number(row.last)).toISOString(),
      }));
    },
  };
}
