/**
 * The retention writes of the SQLite ledger, applied by `ledger-writer.ts` inside its transaction:
 * pruning units (each checked again here, where nothing can change it meanwhile), pruning kept
 * evaluations with their tombstones, and giving free pages back (incremental vacuum).
 *
 * A prune request is bounded in time (`budgetMs`): the writer thread is also ingest's, so a long
 * prune would stall acknowledgements. Units not reached are answered as deferred, for the next
 * request; every unit reached is pruned whole or kept whole.
 *
 * With `dryRun` the same code runs on the store's reader connection, reading only: a dry run counts
 * exactly what pruning would remove.
 */
import type { DatabaseSync } from 'node:sqlite';
import { conversationEvaluationKeys } from '../core/prune-units.ts';
import { addTally, emptyTally, type PruneTally, type PruneUnit } from '../ledger-retention.ts';
import { createRetentionChecks } from './retention-checks.ts';

export type RetentionWriteRequest =
  | {
      op: 'pruneUnits';
      units: PruneUnit[];
      atMs: number;
      keepEvaluations: boolean;
      budgetMs: number;
      dryRun?: boolean;
      /** Traces of these units with spans pending in the span log (in use whatever the tables say). */
      pendingTraces?: string[];
    }
  | { op: 'pruneEvaluations'; beforeMs: number; limit: number; dryRun?: boolean }
  | { op: 'reclaimSpace'; maxPages: number; keepPages: number };

/** `pruneUnits` answers the indexes of the units pruned and kept, and how many it reached (the rest wait). */
export interface PruneUnitsResult {
  pruned: number[];
  kept: number[];
  reached: number;
  tally: PruneTally;
}

export interface ReclaimResult {
  pages: number;
  pageSize: number;
  incremental: boolean;
}

/** `auto_vacuum` = 2: the file was created with incremental vacuum (open-database.ts). */
const INCREMENTAL = 2;

export function createRetentionWrites(db: DatabaseSync): (request: RetentionWriteRequest) => unknown {
  const checks = createRetentionChecks(db);
  const evaluationsIn = 'interaction_id IN (SELECT value FROM json_each(?))';
  const deleteLate = db.prepare('DELETE FROM late_spans WHERE interaction_id = ?');
  const deleteEvaluations = db.prepare(`DELETE FROM evaluations WHERE ${evaluationsIn}`);
  const deleteEvaluationsOf = db.prepare('DELETE FROM evaluations WHERE interaction_id = ?');
  const deleteInteractionReviews = db.prepare(
    'DELETE FROM reviews WHERE interaction_id = ? AND conversation_id IS NULL',
  );
  const deleteConversationReviews = db.prepare('DELETE FROM reviews WHERE conversation_id = ? AND agent_id = ?');
  const countReviews = db.prepare(`
    SELECT count(*) AS n, coalesce(sum(length(review) + coalesce(length(record), 0)), 0) AS bytes FROM reviews
    WHERE (conversation_id IS NULL AND interaction_id = ?1) OR (conversation_id = ?2 AND agent_id = ?3)`);
  const insertTombstone = db.prepare(`
    INSERT OR REPLACE INTO pruned_interactions (interaction_id, trace_id, agent_id, end_time_ms, pruned_at_ms)
    VALUES (?, ?, ?, ?, ?)`);
  const deleteInteraction = db.prepare('DELETE FROM interactions WHERE interaction_id = ?');
  const deleteTurns = db.prepare('DELETE FROM conversation_turns WHERE conversation_id = ? AND agent_id = ?');
  const deleteRevisions = db.prepare('DELETE FROM conversation_revisions WHERE conversation_id = ? AND agent_id = ?');
  const markPruned = db.prepare('UPDATE conversations SET pruned_at_ms = ? WHERE conversation_id = ? AND agent_id = ?');
  const deleteConversation = db.prepare('DELETE FROM conversations WHERE conversation_id = ? AND agent_id = ?');
  const oldTombstones = db.prepare(`
    SELECT interaction_id, end_time_ms FROM pruned_interactions WHERE end_time_ms < ?
    ORDER BY end_time_ms, interaction_id LIMIT ?`);
  const oldConversations = db.prepare(`
    SELECT conversation_id, agent_id, revision, last_activity_ms FROM conversations
    WHERE pruned_at_ms IS NOT NULL AND last_activity_ms < ?
    ORDER BY last_activity_ms, conversation_id, agent_id LIMIT ?`);
  const countEvaluations = db.prepare(`
    SELECT count(*) AS n, coalesce(sum(length(CAST(record AS BLOB))), 0) AS bytes FROM evaluations
    WHERE ${evaluationsIn}`);
  const deleteTombstone = db.prepare('DELETE FROM pruned_interactions WHERE interaction_id = ?');

  function pruneUnits(request: Extract<RetentionWriteRequest, { op: 'pruneUnits' }>): PruneUnitsResult {
    const started = performance.now();
    const result: PruneUnitsResult = { pruned: [], kept: [], reached: 0, tally: emptyTally() };
    const pending = new Set(request.pendingTraces);
    for (const [index, unit] of request.units.entries()) {
      if (index > 0 && performance.now() - started > request.budgetMs) break;
      result.reached = index + 1;
      const found = checks.check(unit, pending);
      if (found.status === 'gone') continue;
      if (found.status === 'in-use') {
        result.kept.push(index);
        continue;
      }
      const keep = request.keepEvaluations;
      addTally(result.tally, found.tally(keep));
      result.pruned.push(index);
      if (request.dryRun) continue;
      for (const interaction of found.interactions) {
        if (keep && interaction.evaluated) {
          insertTombstone.run(
            interaction.interactionId,
            interaction.traceId,
            interaction.agentId,
            interaction.endMs,
            request.atMs,
          );
        } else if (!keep && interaction.evaluated) {
          deleteEvaluationsOf.run(interaction.interactionId);
          deleteInteractionReviews.run(interaction.interactionId);
        }
        deleteLate.run(interaction.interactionId);
        deleteInteraction.run(interaction.interactionId);
      }
      if (unit.kind === 'conversation' && found.conversation) {
        deleteTurns.run(unit.conversationId, unit.agentId);
        deleteRevisions.run(unit.conversationId, unit.agentId);
        if (keep && found.conversation.evaluated) markPruned.run(request.atMs, unit.conversationId, unit.agentId);
        else {
          if (found.conversation.evaluated) {
            for (const key of found.conversation.keys) deleteEvaluationsOf.run(key);
            deleteConversationReviews.run(unit.conversationId, unit.agentId);
          }
          deleteConversation.run(unit.conversationId, unit.agentId);
        }
      }
    }
    return result;
  }

  /** Kept evaluations whose subject ended before `beforeMs`, oldest first, with their tombstones. */
  function pruneEvaluations(request: Extract<RetentionWriteRequest, { op: 'pruneEvaluations' }>) {
    const tally = emptyTally();
    const rows = (statement: typeof oldTombstones) =>
      statement.all(request.beforeMs, request.limit) as Record<string, unknown>[];
    const subjects = [
      ...rows(oldTombstones).map((row) => {
        const interactionId = String(row.interaction_id);
        return {
          endMs: Number(row.end_time_ms),
          keys: [interactionId],
          reviews: [interactionId, null, null] as const,
          remove: () => {
            deleteInteractionReviews.run(interactionId);
            deleteTombstone.run(interactionId);
          },
        };
      }),
      ...rows(oldConversations).map((row) => {
        const [conversationId, agentId] = [String(row.conversation_id), String(row.agent_id)];
        return {
          endMs: Number(row.last_activity_ms),
          keys: conversationEvaluationKeys(conversationId, agentId, Number(row.revision)),
          reviews: [null, conversationId, agentId] as const,
          remove: () => {
            deleteConversationReviews.run(conversationId, agentId);
            deleteConversation.run(conversationId, agentId);
          },
        };
      }),
    ]
      .sort((a, b) => a.endMs - b.endMs)
      .slice(0, request.limit);
    for (const subject of subjects) {
      const keys = JSON.stringify(subject.keys);
      const found = countEvaluations.get(keys) as { n: number; bytes: number };
      tally.evaluations.count += Number(found.n);
      tally.evaluations.bytes += Number(found.bytes);
      const reviews = countReviews.get(...subject.reviews) as { n: number; bytes: number };
      tally.reviews.count += Number(reviews.n);
      tally.reviews.bytes += Number(reviews.bytes);
      if (request.dryRun) continue;
      deleteEvaluations.run(keys);
      subject.remove();
    }
    return { subjects: subjects.length, tally };
  }

  function reclaimSpace(maxPages: number, keepPages: number): ReclaimResult {
    const pageSize = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    const mode = Number((db.prepare('PRAGMA auto_vacuum').get() as { auto_vacuum: number }).auto_vacuum);
    if (mode !== INCREMENTAL) return { pages: 0, pageSize, incremental: false };
    const free = Number((db.prepare('PRAGMA freelist_count').get() as { freelist_count: number }).freelist_count);
    const pages = Math.min(Math.max(0, free - keepPages), Math.max(0, Math.floor(maxPages)));
    if (pages > 0) db.exec(`PRAGMA incremental_vacuum(${pages})`);
    return { pages, pageSize, incremental: true };
  }

  return (request) => {
    switch (request.op) {
      case 'pruneUnits':
        return pruneUnits(request);
      case 'pruneEvaluations':
        return pruneEvaluations(request);
      case 'reclaimSpace':
        return reclaimSpace(request.maxPages, request.keepPages);
    }
  };
}
