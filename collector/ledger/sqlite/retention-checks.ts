/**
 * Whether a retention unit of the SQLite ledger is in use, and what pruning it removes: the
 * reads behind `pruneUnits` (on the writer, inside its transaction) and behind a dry run (on the
 * reader). The rules are ledger-retention.ts's; this is their SQL.
 *
 * The intake mark is the highest rowid taken in (evaluation-writes.ts): an interaction above it
 * awaits intake. The interaction with the highest rowid is never pruned either, or the next one
 * recorded would reuse its rowid, at or below the mark, and never be taken in.
 */
import type { DatabaseSync } from 'node:sqlite';
import { conversationEvaluationKeys } from '../core/prune-units.ts';
import { emptyTally, type PruneTally, type PruneUnit } from '../ledger-retention.ts';

/** One interaction a unit removes. */
export interface DoomedInteraction {
  interactionId: string;
  traceId: string;
  agentId: string;
  endMs: number;
  /** It has evaluation records (or reviews): with `keepEvaluations`, a tombstone keeps them readable. */
  evaluated: boolean;
}

/** What a unit is now: gone already, in use, or prunable with what it removes. */
export type UnitCheck =
  | { status: 'gone' }
  | { status: 'in-use' }
  | {
      status: 'prunable';
      interactions: DoomedInteraction[];
      /** A conversation unit: its revision count, and whether it has evaluations of its own. */
      conversation?: { revision: number; evaluated: boolean; keys: string[] };
      /** What goes when evaluations go with the unit, and what stays otherwise is left out. */
      tally(keepEvaluations: boolean): PruneTally;
    };

type Row = Record<string, unknown>;

export interface RetentionChecks {
  /** `pending`: traces known to have spans pending elsewhere than the tables (the span log). */
  check(unit: PruneUnit, pending: ReadonlySet<string>): UnitCheck;
}

export function createRetentionChecks(db: DatabaseSync): RetentionChecks {
  const selectInteraction = db.prepare(`
    SELECT interaction_id, trace_id, agent_id, end_time_ms, length(CAST(record AS BLOB)) AS bytes,
      EXISTS (SELECT 1 FROM conversation_turns t WHERE t.interaction_id = i.interaction_id) AS turn
    FROM interactions i WHERE interaction_id = ?`);
  // Pending spans, an interaction awaiting intake (or the last recorded), a queued evaluation.
  const traceInUse = db.prepare(`
    SELECT EXISTS (SELECT 1 FROM pending_spans WHERE trace_id = ?1)
      OR EXISTS (
        SELECT 1 FROM interactions j WHERE j.trace_id = ?1 AND (
          j.rowid > (SELECT through_rowid FROM evaluation_intake WHERE id = 1)
          OR j.rowid = (SELECT max(rowid) FROM interactions)
          OR EXISTS (SELECT 1 FROM evaluation_queue q WHERE q.interaction_id = j.interaction_id)))
      AS in_use`);
  const turnInTrace = db.prepare(`
    SELECT EXISTS (
      SELECT 1 FROM interactions j JOIN conversation_turns t ON t.interaction_id = j.interaction_id
      WHERE j.trace_id = ?) AS turn`);
  const selectConversation = db.prepare(`
    SELECT revision, open, pruned_at_ms FROM conversations WHERE conversation_id = ? AND agent_id = ?`);
  const revisionAwaiting = db.prepare(`
    SELECT EXISTS (
      SELECT 1 FROM conversation_revisions WHERE conversation_id = ? AND agent_id = ? AND awaiting_intake = 1)
      AS awaiting`);
  const queued = db.prepare('SELECT EXISTS (SELECT 1 FROM evaluation_queue WHERE interaction_id = ?) AS queued');
  const selectTurns = db.prepare(`
    SELECT i.interaction_id, i.trace_id, i.agent_id, i.end_time_ms, length(CAST(i.record AS BLOB)) AS bytes
    FROM conversation_turns t JOIN interactions i ON i.interaction_id = t.interaction_id
    WHERE t.conversation_id = ? AND t.agent_id = ?`);
  const lateOf = db.prepare(
    'SELECT count(*) AS n, coalesce(sum(length(span)), 0) AS bytes FROM late_spans WHERE interaction_id = ?',
  );
  // One subject key at a time: the unique key's index, where json_each would cost a scan of its own.
  const evaluationsOf = db.prepare(`
    SELECT count(*) AS n, coalesce(sum(length(CAST(record AS BLOB))), 0) AS bytes FROM evaluations
    WHERE interaction_id = ?`);

  const reviewsOfInteraction = db.prepare(`
    SELECT count(*) AS n, coalesce(sum(length(review) + coalesce(length(record), 0)), 0) AS bytes FROM reviews
    WHERE interaction_id = ? AND conversation_id IS NULL`);
  const reviewsOfConversation = db.prepare(`
    SELECT count(*) AS n, coalesce(sum(length(review) + coalesce(length(record), 0)), 0) AS bytes FROM reviews
    WHERE conversation_id = ? AND agent_id = ?`);

  const flag = (row: unknown, column: string) => Number((row as Row)[column]) === 1;
  const counted = (row: unknown) => ({ count: Number((row as Row).n), bytes: Number((row as Row).bytes) });

  function doomed(
    row: Row,
    pending: ReadonlySet<string>,
  ): { interaction: DoomedInteraction; tally: PruneTally } | undefined {
    const traceId = String(row.trace_id);
    if (pending.has(traceId) || flag(traceInUse.get(traceId), 'in_use')) return undefined;
    const interactionId = String(row.interaction_id);
    const tally = emptyTally();
    tally.interactions = { count: 1, bytes: Number(row.bytes) };
    tally.late_spans = counted(lateOf.get(interactionId));
    tally.evaluations = counted(evaluationsOf.get(interactionId));
    tally.reviews = counted(reviewsOfInteraction.get(interactionId));
    return {
      interaction: {
        interactionId,
        traceId,
        agentId: String(row.agent_id),
        endMs: Number(row.end_time_ms),
        evaluated: tally.evaluations.count + tally.reviews.count > 0,
      },
      tally,
    };
  }

  function tallyOf(parts: PruneTally[], conversations: number): (keep: boolean) => PruneTally {
    return (keep) => {
      const tally = emptyTally();
      for (const part of parts) {
        tally.interactions.count += part.interactions.count;
        tally.interactions.bytes += part.interactions.bytes;
        tally.late_spans.count += part.late_spans.count;
        tally.late_spans.bytes += part.late_spans.bytes;
        if (!keep) {
          tally.evaluations.count += part.evaluations.count;
          tally.evaluations.bytes += part.evaluations.bytes;
          tally.reviews.count += part.reviews.count;
          tally.reviews.bytes += part.reviews.bytes;
        }
      }
      tally.conversations.count = conversations;
      return tally;
    };
  }

  function checkInteraction(interactionId: string, pending: ReadonlySet<string>): UnitCheck {
    const row = selectInteraction.get(interactionId) as Row | undefined;
    if (!row) return { status: 'gone' };
    // A turn goes with its conversation; an interaction beside a turn (a sub-agent's), after it.
    if (flag(row, 'turn') || flag(turnInTrace.get(String(row.trace_id)), 'turn')) return { status: 'in-use' };
    const found = doomed(row, pending);
    if (!found) return { status: 'in-use' };
    return { status: 'prunable', interactions: [found.interaction], tally: tallyOf([found.tally], 0) };
  }

  function checkConversation(conversationId: string, agentId: string, pending: ReadonlySet<string>): UnitCheck {
    const state = selectConversation.get(conversationId, agentId) as Row | undefined;
    if (!state || state.pruned_at_ms !== null) return { status: 'gone' };
    if (flag(state, 'open')) return { status: 'in-use' };
    const keys = conversationEvaluationKeys(conversationId, agentId, Number(state.revision));
    if (flag(revisionAwaiting.get(conversationId, agentId), 'awaiting')) return { status: 'in-use' };
    if (keys.some((key) => flag(queued.get(key), 'queued'))) return { status: 'in-use' };
    const interactions: DoomedInteraction[] = [];
    const parts: PruneTally[] = [];
    for (const row of selectTurns.all(conversationId, agentId) as Row[]) {
      const found = doomed(row, pending);
      if (!found) return { status: 'in-use' };
      interactions.push(found.interaction);
      parts.push(found.tally);
    }
    const own = emptyTally();
    for (const key of keys) {
      const found = counted(evaluationsOf.get(key));
      own.evaluations.count += found.count;
      own.evaluations.bytes += found.bytes;
    }
    own.reviews = counted(reviewsOfConversation.get(conversationId, agentId));
    parts.push(own);
    return {
      status: 'prunable',
      interactions,
      conversation: {
        revision: Number(state.revision),
        evaluated: own.evaluations.count + own.reviews.count > 0,
        keys,
      },
      tally: tallyOf(parts, 1),
    };
  }

  return {
    check(unit, pending) {
      return unit.kind === 'interaction'
        ? checkInteraction(unit.interactionId, pending)
        : checkConversation(unit.conversationId, unit.agentId, pending);
    },
  };
}
