/**
 * The retention role of the SQLite store: size and units read on the store's reader connection,
 * pruning and incremental vacuum sent to the writer (`retention-writes.ts`), dry runs read on the
 * reader with the same code.
 *
 * Size: `usedBytes` is the pages in use ((page_count − freelist_count) × page_size); `freeBytes` the
 * free pages not yet given back plus the WAL file and the span log. Both are logs, not data: their
 * size swings with checkpoints (the WAL, up to `JOURNAL_SIZE_LIMIT_BYTES` once one has caught up,
 * open-database.ts) and with the spans in flight (the span log), and counting them as used would
 * make pruning chase them. Both figures are exact and cheap (header reads, the log's own count).
 *
 * Pending spans of a file ledger are in its span log, not in a table the writer's checks can read:
 * a prune request carries which of its units' traces have spans pending (read here just before).
 */
import { statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import {
  conversationAfter,
  interactionAfter,
  interactionReadEnd,
  mergePage,
  normalizePrunableQuery,
  retentionTimeMs,
  type StreamRows,
} from '../core/prune-units.ts';
import { LedgerStoreError } from '../errors.ts';
import { emptyTally, type LedgerRetention, type PruneTally, type PruneUnit } from '../ledger-retention.ts';
import { createRetentionWrites, type PruneUnitsResult, type ReclaimResult } from './retention-writes.ts';
import type { WriterClient } from './writer-client.ts';
import type { SpanLog } from './span-log.ts';

/**
 * How long one prune transaction may hold the writer: ingest writes wait behind it, so it stays
 * within what an OTLP acknowledgement can afford. Units not reached go in the next one.
 */
export const PRUNE_TRANSACTION_BUDGET_MS = 25;

type Row = Record<string, unknown>;

/**
 * `exclusive`: the store writes on its own connection (the inline writer of a command): nothing
 * else in this process holds the file, so it may be compacted.
 */
export function createRetentionStoreMethods(
  db: DatabaseSync,
  path: string,
  writer: WriterClient,
  ensureOpen: () => void,
  exclusive: boolean,
  /** The ledger's span log (a file ledger); without it pending spans are rows the checks read. */
  log: SpanLog | undefined,
): LedgerRetention {
  const selectInteractions = db.prepare(`
    SELECT interaction_id, agent_id, end_time_ms FROM interactions i
    WHERE (end_time_ms, interaction_id) > (?, ?) AND end_time_ms < ?
      AND NOT EXISTS (SELECT 1 FROM conversation_turns t WHERE t.interaction_id = i.interaction_id)
    ORDER BY end_time_ms, interaction_id LIMIT ?`);
  // The page's conversations with their turns in one read (a row per turn, none for a turnless one).
  const selectConversations = db.prepare(`
    SELECT c.conversation_id, c.agent_id, c.last_activity_ms, t.interaction_id FROM (
      SELECT conversation_id, agent_id, last_activity_ms FROM conversations
      WHERE (last_activity_ms, conversation_id, agent_id) > (?, ?, ?) AND last_activity_ms < ?
        AND open = 0 AND pruned_at_ms IS NULL
      ORDER BY last_activity_ms, conversation_id, agent_id LIMIT ?) c
    LEFT JOIN conversation_turns t ON t.conversation_id = c.conversation_id AND t.agent_id = c.agent_id
    ORDER BY c.last_activity_ms, c.conversation_id, c.agent_id, t.start_time_ms, t.interaction_id`);
  const selectTombstone = db.prepare(
    'SELECT trace_id, agent_id, end_time_ms, pruned_at_ms FROM pruned_interactions WHERE interaction_id = ?',
  );
  const selectPrunedConversation = db.prepare(`
    SELECT revision, last_activity_ms, pruned_at_ms FROM conversations
    WHERE conversation_id = ? AND agent_id = ? AND pruned_at_ms IS NOT NULL`);
  const pragma = (name: string) => Number((db.prepare(`PRAGMA ${name}`).get() as Row)[name]);
  const traceOfInteraction = db.prepare('SELECT trace_id FROM interactions WHERE interaction_id = ?');
  const tracesOfConversation = db.prepare(`
    SELECT i.trace_id FROM conversation_turns t JOIN interactions i ON i.interaction_id = t.interaction_id
    WHERE t.conversation_id = ? AND t.agent_id = ?`);
  // A dry run reads with the writer's code on this connection, and deletes nothing.
  const dryRun = createRetentionWrites(db);
  let locked = false;

  const iso = (ms: unknown) => new Date(Number(ms)).toISOString();

  /** The traces of the units' interactions that have spans in the span log. */
  function pendingTracesOf(units: PruneUnit[]): string[] {
    if (!log) return [];
    const traceIds = new Set<string>();
    for (const unit of units) {
      const rows =
        unit.kind === 'interaction'
          ? [traceOfInteraction.get(unit.interactionId) as Row | undefined]
          : (tracesOfConversation.all(unit.conversationId, unit.agentId) as Row[]);
      for (const row of rows) if (row && log.has(String(row.trace_id))) traceIds.add(String(row.trace_id));
    }
    return [...traceIds];
  }

  function walBytes(): number {
    if (path === ':memory:') return 0;
    try {
      return statSync(`${path}-wal`).size;
    } catch {
      return 0; // no WAL file (between connections) is no WAL
    }
  }

  return {
    async measureLedgerSize() {
      ensureOpen();
      const pageSize = pragma('page_size');
      const free = pragma('freelist_count');
      return {
        usedBytes: (pragma('page_count') - free) * pageSize,
        freeBytes: free * pageSize + walBytes() + (log?.bytes ?? 0),
      };
    },

    async findPrunable(query) {
      ensureOpen();
      const q = normalizePrunableQuery(query);
      const conversations: StreamRows['conversations'] = [];
      for (const row of selectConversations.all(...conversationAfter(q.cursor), q.beforeMs, q.limit) as Row[]) {
        const [conversationId, agentId] = [String(row.conversation_id), String(row.agent_id)];
        let last = conversations.at(-1);
        if (last?.conversationId !== conversationId || last.agentId !== agentId) {
          last = { conversationId, agentId, endMs: Number(row.last_activity_ms), interactionIds: [] };
          conversations.push(last);
        }
        if (row.interaction_id !== null) last.interactionIds.push(String(row.interaction_id));
      }
      const readEnd = interactionReadEnd(q, conversations);
      const interactions = (selectInteractions.all(...interactionAfter(q.cursor), readEnd, q.limit) as Row[]).map(
        (row) => ({
          interactionId: String(row.interaction_id),
          agentId: String(row.agent_id),
          endMs: Number(row.end_time_ms),
        }),
      );
      return mergePage({ interactions, conversations }, q);
    },

    async pruneUnits(units, options) {
      ensureOpen();
      const request = {
        op: 'pruneUnits' as const,
        units: units.map(plainUnit),
        atMs: retentionTimeMs(options.at, 'at', 'pruneUnits', path),
        keepEvaluations: options.keepEvaluations,
        budgetMs: PRUNE_TRANSACTION_BUDGET_MS,
        dryRun: options.dryRun === true,
        pendingTraces: pendingTracesOf(units),
      };
      if (units.length === 0) return { pruned: [], kept: [], deferred: [], tally: emptyTally() };
      const result = (options.dryRun ? dryRun(request) : await writer.write(request)) as PruneUnitsResult;
      return {
        pruned: result.pruned.map((index) => units[index]),
        kept: result.kept.map((index) => units[index]),
        deferred: units.slice(result.reached),
        tally: result.tally,
      };
    },

    async pruneEvaluations(query) {
      ensureOpen();
      const beforeMs =
        query.before === undefined
          ? Number.MAX_SAFE_INTEGER
          : retentionTimeMs(query.before, 'before', 'pruneEvaluations', path);
      const request = { op: 'pruneEvaluations' as const, beforeMs, limit: query.limit, dryRun: query.dryRun === true };
      return (query.dryRun ? dryRun(request) : await writer.write(request)) as { subjects: number; tally: PruneTally };
    },

    async reclaimSpace({ maxBytes, keepFreeBytes = 0 }) {
      ensureOpen();
      const pageSize = pragma('page_size');
      const maxPages = Math.floor(maxBytes / pageSize);
      const keepPages = Math.ceil(keepFreeBytes / pageSize);
      const result = (await writer.write({ op: 'reclaimSpace', maxPages, keepPages })) as ReclaimResult;
      return { bytes: result.pages * result.pageSize, incremental: result.incremental };
    },

    async compactLedger() {
      ensureOpen();
      if (!exclusive || path === ':memory:')
        throw new LedgerStoreError(`ledger ${path}: compacting needs the ledger file to itself (stop the collector)`);
      const fileBytes = () => pragma('page_count') * pragma('page_size');
      const beforeBytes = fileBytes();
      requireFreeDisk(path, beforeBytes);
      // Takes effect at the VACUUM, which rebuilds the file (through a temporary copy, then the WAL).
      db.exec('PRAGMA auto_vacuum = INCREMENTAL');
      db.exec('VACUUM');
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      return { beforeBytes, afterBytes: fileBytes() };
    },

    async lockPruning() {
      ensureOpen();
      // One process per ledger file (the collector's lock file): the lock is this store's alone.
      if (locked) return undefined;
      locked = true;
      return {
        async release() {
          locked = false;
        },
      };
    },

    async getPrunedInteraction(interactionId) {
      ensureOpen();
      const row = selectTombstone.get(interactionId) as Row | undefined;
      if (!row) return undefined;
      return {
        interactionId,
        traceId: String(row.trace_id),
        agentId: String(row.agent_id),
        endTime: iso(row.end_time_ms),
        prunedAt: iso(row.pruned_at_ms),
      };
    },

    async getPrunedConversation(conversationId, agentId) {
      ensureOpen();
      const row = selectPrunedConversation.get(conversationId, agentId) as Row | undefined;
      if (!row) return undefined;
      return {
        conversationId,
        agentId,
        revision: Number(row.revision),
        lastActivity: iso(row.last_activity_ms),
        prunedAt: iso(row.pruned_at_ms),
      };
    },
  };
}

/** A unit as plain data (what crosses to the writer thread). */
function plainUnit(unit: PruneUnit): PruneUnit {
  return unit.kind === 'interaction'
    ? { kind: 'interaction', interactionId: unit.interactionId, agentId: unit.agentId, endTime: unit.endTime }
    : {
        kind: 'conversation',
        conversationId: unit.conversationId,
        agentId: unit.agentId,
        endTime: unit.endTime,
        interactionIds: [...unit.interactionIds],
      };
}

/**
 * VACUUM writes a copy of the file in the temporary directory, then the new content through the
 * WAL beside the ledger: both need room for the whole file.
 */
function requireFreeDisk(path: string, bytes: number): void {
  const free = (folder: string) => {
    const stats = statfsSync(folder);
    return { device: statSync(folder).dev, bytes: stats.bavail * stats.bsize };
  };
  const ledger = free(dirname(resolve(path)));
  const temporary = free(tmpdir());
  const needed = ledger.device === temporary.device ? 2 * bytes : bytes;
  for (const [where, found] of [
    [dirname(resolve(path)), ledger],
    [tmpdir(), temporary],
  ] as const) {
    if (found.bytes < needed)
      throw new LedgerStoreError(
        `ledger ${path}: compacting needs ${mib(needed)} MiB free in ${where}, which has ${mib(found.bytes)} MiB ` +
          '(free some disk, or set TMPDIR to a larger file system)',
      );
  }
}

const mib = (bytes: number) => Math.ceil(bytes / 1024 / 1024);
