/**
 * The ledger store contract. One interface, several stores (SQLite embedded, PostgreSQL later);
 * one contract test suite (`test/ledger/store-contract.ts`) runs against each.
 *
 * Durability contract: when `appendSpans` resolves, the spans survive a `kill -9` of the process.
 * The receiver acknowledges an OTLP request only after that.
 */
import type { InteractionRecord } from '../model/interaction.ts';
import type { SpanData } from '../model/span.ts';

export interface InteractionQuery {
  agentId?: string;
  conversationId?: string;
  /** Only interactions that ended at or after this ISO-8601 time. */
  since?: string;
  /** Newest first; default 100, at most 1000. */
  limit?: number;
}

/** A late span: it arrived after the interaction it belongs to was completed. */
export interface LateSpan {
  interactionId: string;
  span: SpanData;
}

export interface LedgerStore {
  /** Durably stores received spans (the write-ahead path). Resolves once durable. */
  appendSpans(spans: SpanData[]): Promise<void>;

  /** Every span stored by `appendSpans` whose trace has not been released: what a restart replays. */
  loadPendingSpans(): Promise<SpanData[]>;

  /** The stored, unreleased spans of one trace. */
  loadTraceSpans(traceId: string): Promise<SpanData[]>;

  /**
   * Records completed interactions. Idempotent per interaction id: a record already present is
   * kept as it is (a replay after a restart must not duplicate or rewrite it).
   */
  putInteractions(records: InteractionRecord[]): Promise<void>;

  /** Drops the stored spans of traces whose interactions are all decided. */
  releaseTraces(traceIds: string[]): Promise<void>;

  /** Keeps spans that arrived after their interaction completed. */
  putLateSpans(late: LateSpan[]): Promise<void>;

  getInteraction(interactionId: string): Promise<InteractionRecord | undefined>;
  listInteractions(query: InteractionQuery): Promise<InteractionRecord[]>;
  /** Ids of stored interactions among `ids` (used to tell replayed interactions from new ones). */
  existingInteractionIds(ids: string[]): Promise<Set<string>>;

  close(): Promise<void>;
}
