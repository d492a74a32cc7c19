/**
 * `TestLedgerClient`: an in-memory `LedgerClient` for unit tests, holding the interaction records
 * (and evaluation records) a test puts in with `seed(…)`, keyed by interaction id.
 *
 * ```ts
 * const ledger = TestLedgerClient.create().seed(testInteractionRecord({ interactionId: 'interaction-1' }));
 * ```
 *
 * Conversations: `getConversation` gathers the interactions given to `seed()` of the conversation (same
 * conversation id and agent, not nested in another interaction) in order of start time, as one
 * open conversation. Seeding a `ConversationWithInteractions` instead fixes what it returns (its
 * interactions are seeded too), one revision per record.
 */
import type { ConversationWithInteractions, InteractionRecord } from '../model/records.ts';
import { ConversationNotFoundError, InteractionNotFoundError } from '../evaluation/errors.ts';
import type { EvaluationRecord } from '../model/records.ts';
import type { InteractionQuery, LedgerClient } from '../evaluation/ledger-client.ts';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

type Seed = InteractionRecord | ConversationWithInteractions;

export class TestLedgerClient implements LedgerClient {
  readonly #interactions = new Map<string, InteractionRecord>();
  readonly #conversations = new Map<string, ConversationWithInteractions>();
  readonly #evaluations: EvaluationRecord[] = [];

  static create(): TestLedgerClient {
    return new TestLedgerClient();
  }

  /**
   * Adds interaction records (a later record with the same id replaces the earlier one), or
   * conversations (their interactions too).
   */
  seed(...records: Array<Seed | Seed[]>): this {
    for (const record of records.flat()) {
      if (isConversation(record)) {
        const conversation = structuredClone(record);
        this.#conversations.set(conversationKey(record.conversationId, record.agentId, record.revision), conversation);
        for (const interaction of conversation.interactions)
          this.#interactions.set(interaction.interactionId, structuredClone(interaction));
      } else this.#interactions.set(record.interactionId, structuredClone(record));
    }
    return this;
  }

  /** Adds evaluation records, returned by `getEvaluations`. */
  seedEvaluations(...records: Array<EvaluationRecord | EvaluationRecord[]>): this {
    for (const record of records.flat()) this.#evaluations.push(structuredClone(record));
    return this;
  }

  async getInteraction(interactionId: string): Promise<InteractionRecord> {
    const record = this.#interactions.get(interactionId);
    if (!record) throw new InteractionNotFoundError(interactionId);
    return structuredClone(record);
  }

  async findInteraction(interactionId: string): Promise<InteractionRecord | undefined> {
    const record = this.#interactions.get(interactionId);
    return record && structuredClone(record);
  }

  async getEvaluations(interactionId: string): Promise<EvaluationRecord[]> {
    return this.#evaluations
      .filter((record) => record.interactionId === interactionId)
      .sort((a, b) => a.completedAt.localeCompare(b.completedAt))
      .map((record) => structuredClone(record));
  }

  async getConversation(
    conversationId: string,
    agentId: string,
    options: { revision?: number } = {},
  ): Promise<ConversationWithInteractions> {
    const seeded = [...this.#conversations.values()]
      .filter((c) => c.conversationId === conversationId && c.agentId === agentId)
      .filter((c) => options.revision === undefined || c.revision === options.revision)
      .sort((a, b) => b.revision - a.revision)[0];
    if (seeded) return structuredClone(seeded);
    const interactions = [...this.#interactions.values()]
      .filter((r) => r.conversationId === conversationId && r.agentId === agentId && r.flowId === undefined)
      .sort(
        (a, b) => Date.parse(a.startTime) - Date.parse(b.startTime) || a.interactionId.localeCompare(b.interactionId),
      )
      .map((record) => structuredClone(record));
    if (interactions.length === 0 || (options.revision ?? 1) !== 1)
      throw new ConversationNotFoundError(conversationId, agentId, options.revision);
    const last = interactions[interactions.length - 1];
    return {
      conversationId,
      agentId,
      revision: 1,
      interactionIds: interactions.map((record) => record.interactionId),
      startTime: interactions[0].startTime,
      // ISO-8601 times sort as text: the latest end is the last one sorted.
      lastActivityTime: interactions.map((record) => record.endTime).sort()[interactions.length - 1],
      open: true,
      failed: last.failed,
      turns: interactions.length,
      interactions,
    };
  }

  async listInteractions(query: InteractionQuery = {}): Promise<InteractionRecord[]> {
    const since = query.since === undefined ? undefined : new Date(query.since).getTime();
    const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    return [...this.#interactions.values()]
      .filter((r) => query.agentId === undefined || r.agentId === query.agentId)
      .filter((r) => query.conversationId === undefined || r.conversationId === query.conversationId)
      .filter((r) => since === undefined || Date.parse(r.endTime) >= since)
      .sort((a, b) => Date.parse(b.endTime) - Date.parse(a.endTime) || b.interactionId.localeCompare(a.interactionId))
      .slice(0, limit)
      .map((record) => structuredClone(record));
  }
}

function isConversation(seed: Seed): seed is ConversationWithInteractions {
  return Array.isArray((seed as ConversationWithInteractions).interactions);
}

function conversationKey(conversationId: string, agentId: string, revision: number): string {
  return JSON.stringify([conversationId, agentId, revision]);
}

/**
 * A complete interaction record for tests, with plausible defaults for what `overrides` leaves
 * out: a successful `support-agent` interaction whose final response is `finalResponseText`.
 */
export function testInteractionRecord(overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  const traceId = overrides.traceId ?? '0af7651916cd43dd8448eb211c80319c';
  const spanId = overrides.spanId ?? 'b7ad6b7169203331';
  const finalResponseText = overrides.finalResponseText ?? 'Your order A-17 has shipped and arrives on Friday.';
  const record: InteractionRecord = {
    interactionId: `${traceId}-${spanId}`,
    traceId,
    spanId,
    agentId: 'support-agent',
    roles: [],
    startTime: '2026-01-01T10:00:00.000Z',
    endTime: '2026-01-01T10:00:01.500Z',
    durationMs: 1500,
    failed: false,
    input: [{ role: 'user', parts: [{ type: 'text', content: 'Where is my order A-17?' }] }],
    output:
      finalResponseText === '' ? [] : [{ role: 'assistant', parts: [{ type: 'text', content: finalResponseText }] }],
    finalResponseText,
    transcript: [
      { type: 'message', role: 'user', content: 'Where is my order A-17?' },
      ...(finalResponseText === ''
        ? []
        : [{ type: 'message' as const, role: 'assistant', content: finalResponseText }]),
    ],
    toolCalls: [],
    usage: {},
    attributes: {},
    completion: 'structural',
    ...overrides,
  };
  return record;
}
