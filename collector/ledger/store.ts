/**
 * The whole ledger contract: every role a store implements, composed. Two stores implement it
 * (`sqlite/`, `postgres/`), `open-store.ts` opens the configured one, and one contract test suite
 * (`test/collector/ledger/store-contract.ts`) runs against each. Code that needs only part of the ledger
 * takes the narrowest role (`SpanStore`, `InteractionStore`, ...); the service holds the whole.
 */
import type { ConversationStore } from './conversation-store.ts';
import type { EvaluationQueue } from './evaluation-queue.ts';
import type { EvaluationWaits } from './evaluation-waits.ts';
import type { InteractionStore } from './interaction-store.ts';
import type { LedgerRetention } from './ledger-retention.ts';
import type { RecordedEvaluations } from './recorded-evaluations.ts';
import type { ReplicaStore } from './replica-store.ts';
import type { ReviewStore } from './review-store.ts';
import type { SpanStore } from './span-store.ts';

// The roles' types, so that one import gives the whole contract.
export type {
  ConversationEndRequest,
  ConversationQuery,
  ConversationRevision,
  ConversationRevisionKey,
  ConversationRevisionPageQuery,
  ConversationStore,
  DueConversation,
} from './conversation-store.ts';
export type {
  DurableProgress,
  EvaluationCause,
  EvaluationLease,
  EvaluationQueue,
  EvaluationStart,
  QueuedConversationSubject,
  QueuedEvaluation,
} from './evaluation-queue.ts';
export type { DeliveredSignal, EvaluationWaits, SignalDelivery, SignalDeliveryResult } from './evaluation-waits.ts';
export type {
  ClaimResult,
  OpenReview,
  ReviewClaim,
  ReviewedSubject,
  ReviewQuery,
  ReviewReason,
  ReviewRecord,
  ReviewStatus,
  ReviewStore,
} from './review-store.ts';
export type { AgentSummary, InteractionPageQuery, InteractionQuery, InteractionStore } from './interaction-store.ts';
export type {
  LedgerRetention,
  LedgerSize,
  OpenReviewCheck,
  PrunableQuery,
  PrunedConversation,
  PrunedInteraction,
  PruneOptions,
  PruneResult,
  PruneTally,
  PruneUnit,
  PrunedKind,
  PruningLock,
  RetainedSubject,
} from './ledger-retention.ts';
export type { RecordedEvaluations } from './recorded-evaluations.ts';
export type { ReplicaStore, TraceElsewhere, TracesElsewhere } from './replica-store.ts';
export type { LateSpan, SpanStore } from './span-store.ts';

export interface LedgerStore
  extends SpanStore,
    InteractionStore,
    ConversationStore,
    EvaluationQueue,
    EvaluationWaits,
    RecordedEvaluations,
    ReviewStore,
    ReplicaStore,
    LedgerRetention {
  /** Safe twice; calls after it reject with "the store is closed". */
  close(): Promise<void>;
}
