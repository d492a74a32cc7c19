/**
 * What both stores return for conversations, built from their rows the same way: the
 * `ConversationRecord` of a conversation's row, a `ConversationRevision` of a revision's row, and
 * the conversation as one revision ended (`getConversation(…, { revision })`).
 */
import type {
  ConversationRecord,
  ConversationWithInteractions,
  InteractionRecord,
} from '../../../src/model/records.ts';
import type { ConversationRevision } from '../conversation-store.ts';
import type { ConversationState, RevisionRow } from './conversation-turns.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export function conversationRecordOf(state: ConversationState, interactionIds: string[]): ConversationRecord {
  const record: ConversationRecord = {
    conversationId: state.conversationId,
    agentId: state.agentId,
    revision: state.revision,
    interactionIds,
    startTime: iso(state.startMs),
    lastActivityTime: iso(state.lastActivityMs),
    open: state.open,
    failed: state.lastFailed,
    turns: state.turns,
  };
  if (!state.open && state.endTimeMs !== null) record.endTime = iso(state.endTimeMs);
  if (!state.open && state.endReason !== null) record.endReason = state.endReason;
  return record;
}

export function revisionOfRow(row: RevisionRow, seq: number, interactionIds: string[]): ConversationRevision {
  return {
    conversationId: row.conversationId,
    agentId: row.agentId,
    revision: row.revision,
    interactionIds,
    lastInteractionId: row.lastInteractionId,
    roles: row.lastRoles,
    failed: row.lastFailed,
    startTime: iso(row.startMs),
    endTime: iso(row.endMs),
    endReason: row.endReason,
    seq,
  };
}

/** The conversation as `revision` ended: its interactions up to then (in order), its end and failure. */
export function conversationAtRevision(
  revision: ConversationRevision,
  interactions: InteractionRecord[],
): ConversationWithInteractions {
  const lastActivity = interactions.reduce(
    (latest, interaction) => Math.max(latest, Date.parse(interaction.endTime)),
    Date.parse(revision.startTime),
  );
  return {
    conversationId: revision.conversationId,
    agentId: revision.agentId,
    revision: revision.revision,
    interactionIds: revision.interactionIds,
    startTime: revision.startTime,
    lastActivityTime: iso(Number.isFinite(lastActivity) ? lastActivity : Date.parse(revision.endTime)),
    endTime: revision.endTime,
    endReason: revision.endReason,
    open: false,
    failed: revision.failed,
    turns: revision.interactionIds.length,
    interactions,
  };
}

/** Records of `ids`, in the order of `ids`; ids without a record are left out. */
export function inOrder(ids: readonly string[], records: Iterable<InteractionRecord>): InteractionRecord[] {
  const byId = new Map<string, InteractionRecord>();
  for (const record of records) byId.set(record.interactionId, record);
  return ids.flatMap((id) => {
    const record = byId.get(id);
    return record ? [record] : [];
  });
}
