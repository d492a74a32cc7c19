/**
 * What the assembler decides on a tick: the interactions complete, with their member spans, and
 * the traces that can be released. The processor records them (recording.ts).
 */
import type { Completion } from '../../../src/model/records.ts';

export interface InteractionDecision {
  traceId: string;
  rootSpanId: string;
  interactionId: string;
  memberSpanIds: string[];
  nested: Array<{ spanId: string; interactionId: string }>;
  flowId?: string;
  completion: Completion;
}

export interface Decisions {
  interactions: InteractionDecision[];
  /** Traces with nothing left pending: their stored spans can be released. */
  releasedTraces: string[];
  /** Spans dropped with their trace because they belonged to no interaction. */
  unassignedSpans: number;
  /** Those spans' ids, by released trace (the processor keeps them when the trace was split across replicas). */
  unassigned: Map<string, string[]>;
  /** More traces are due than this call checked (it stopped at its budget): call again soon. */
  more: boolean;
}
