/**
 * The ledger's consistency after pruning (and after a kill -9 in the middle of it): no row that
 * points at an interaction or conversation no longer there, no evaluation whose subject vanished
 * without its tombstone, no tombstone beside its interaction. Plain SQL both stores run alike;
 * `sql` runs one query on the store's storage and resolves its rows.
 */
export type SqlReader = (query: string) => Promise<Array<Record<string, unknown>>>;

const CHECKS: Record<string, string> = {
  'late spans without their interaction': `
    SELECT l.interaction_id AS id FROM late_spans l
    WHERE NOT EXISTS (SELECT 1 FROM interactions i WHERE i.interaction_id = l.interaction_id)`,
  'turns without their interaction': `
    SELECT t.interaction_id AS id FROM conversation_turns t
    WHERE NOT EXISTS (SELECT 1 FROM interactions i WHERE i.interaction_id = t.interaction_id)`,
  'turns without their conversation': `
    SELECT t.interaction_id AS id FROM conversation_turns t
    WHERE NOT EXISTS (
      SELECT 1 FROM conversations c WHERE c.conversation_id = t.conversation_id AND c.agent_id = t.agent_id)`,
  'turns of a pruned conversation': `
    SELECT t.interaction_id AS id FROM conversation_turns t JOIN conversations c
      ON c.conversation_id = t.conversation_id AND c.agent_id = t.agent_id
    WHERE c.pruned_at_ms IS NOT NULL`,
  'revisions without their conversation': `
    SELECT r.conversation_id AS id FROM conversation_revisions r
    WHERE NOT EXISTS (
      SELECT 1 FROM conversations c WHERE c.conversation_id = r.conversation_id AND c.agent_id = r.agent_id)`,
  'evaluations of a vanished interaction without its tombstone': `
    SELECT e.interaction_id AS id FROM evaluations e
    WHERE e.interaction_id NOT LIKE 'conversation:%'
      AND NOT EXISTS (SELECT 1 FROM interactions i WHERE i.interaction_id = e.interaction_id)
      AND NOT EXISTS (SELECT 1 FROM pruned_interactions p WHERE p.interaction_id = e.interaction_id)`,
  'queued evaluations of a vanished interaction': `
    SELECT q.interaction_id AS id FROM evaluation_queue q
    WHERE q.interaction_id NOT LIKE 'conversation:%'
      AND NOT EXISTS (SELECT 1 FROM interactions i WHERE i.interaction_id = q.interaction_id)`,
  'reviews of a vanished interaction without its tombstone': `
    SELECT r.review_id AS id FROM reviews r
    WHERE r.conversation_id IS NULL
      AND NOT EXISTS (SELECT 1 FROM interactions i WHERE i.interaction_id = r.interaction_id)
      AND NOT EXISTS (SELECT 1 FROM pruned_interactions p WHERE p.interaction_id = r.interaction_id)`,
  'reviews of a vanished conversation': `
    SELECT r.review_id AS id FROM reviews r
    WHERE r.conversation_id IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM conversations c WHERE c.conversation_id = r.conversation_id AND c.agent_id = r.agent_id)`,
  'tombstones beside their interaction': `
    SELECT p.interaction_id AS id FROM pruned_interactions p
    WHERE EXISTS (SELECT 1 FROM interactions i WHERE i.interaction_id = p.interaction_id)`,
};

/** Each broken rule with the ids that break it; empty when the ledger is consistent. */
export async function ledgerInconsistencies(sql: SqlReader): Promise<Record<string, string[]>> {
  const problems: Record<string, string[]> = {};
  for (const [rule, query] of Object.entries(CHECKS)) {
    const rows = await sql(query);
    if (rows.length > 0) problems[rule] = rows.map((row) => String(row.id));
  }
  return problems;
}
