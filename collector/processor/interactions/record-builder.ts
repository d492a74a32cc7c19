/**
 * Building the records of decided interactions from their traces' stored bytes: decode one trace,
 * build each of its interactions' records, encode them for the ledger, and let go of the spans
 * before the next trace. The work of one tick, and pure: the recorder (recorder.ts) runs it on a
 * thread of its own, or inline.
 */
import type { InteractionRecord } from '../../../src/model/records.ts';
import type { SpanData } from '../../model/span.ts';
import { endsConversation } from '../../ledger/conversation-store.ts';
import { encodeInteraction, type EncodedInteraction } from '../../ledger/interaction-store.ts';
import { decodeEncodedSpans, readStoredSpans, type StoredSpans } from '../../ledger/span-store.ts';
import type { InteractionDecision } from './decisions.ts';
import { agentIdOf, buildInteractionRecord } from './build-record.ts';
import { headOf, type RecordHead } from './lazy-record.ts';

/** What names the builder's errors (an encoding problem is a fault of the builder itself). */
const WHERE = 'interactions processor';

/** One decided trace: its stored rows (their bytes, or where they are) and the interactions decided of it. */
export interface TraceToRecord {
  traceId: string;
  rows: StoredSpans[];
  decisions: InteractionDecision[];
  /**
   * The rows may lack spans the ledger holds (they are what was held in memory): when a decision
   * names a span they do not have, the trace is reported `incomplete` instead of built.
   */
  maybePartial: boolean;
}

/** One interaction built: its row for the ledger, what the processor counts of it, its head. */
export interface BuiltInteraction {
  row: EncodedInteraction;
  /** The record without its content (lazy-record.ts): what the next stage reads first. */
  head: RecordHead;
  failed: boolean;
  /** It is a turn that ends its conversation. */
  endsConversation: boolean;
}

export interface BuiltTraces {
  /** In the order of the traces given, each trace's in the order of its decisions. */
  built: BuiltInteraction[];
  /** Traces given `maybePartial` that lack a span their decisions name: build them from the ledger. */
  incomplete: string[];
  /** Interactions whose invocation span is not among their trace's spans: not recorded. */
  missingRoot: string[];
}

export function buildTraces(traces: readonly TraceToRecord[]): BuiltTraces {
  const result: BuiltTraces = { built: [], incomplete: [], missingRoot: [] };
  // Rows located in the ledger's files are read first, all of them at once (side by side in a file,
  // the traces of one received request are one read); their buffer goes back once all are decoded.
  const read = readStoredSpans(
    traces.flatMap((trace) => trace.rows),
    WHERE,
  );
  try {
    let next = 0;
    for (const trace of traces) {
      const rows = read.rows.slice(next, next + trace.rows.length);
      next += trace.rows.length;
      buildTrace(trace, spansById(decodeEncodedSpans(rows, WHERE)), result);
    }
  } finally {
    read.giveBack();
  }
  return result;
}

function buildTrace(trace: TraceToRecord, spans: Map<string, SpanData>, result: BuiltTraces): void {
  if (trace.maybePartial && !trace.decisions.every((decision) => named(decision).every((id) => spans.has(id)))) {
    result.incomplete.push(trace.traceId);
    return;
  }
  for (const decision of trace.decisions) {
    const record = buildFromDecision(decision, spans);
    if (!record) result.missingRoot.push(decision.interactionId);
    else result.built.push(builtOf(record));
  }
}

function builtOf(record: InteractionRecord): BuiltInteraction {
  return {
    row: encodeInteraction(record, WHERE),
    head: headOf(record),
    failed: record.failed,
    endsConversation: record.conversationId !== undefined && endsConversation(record.attributes),
  };
}

/** A trace's spans by id. */
export function spansById(spans: readonly SpanData[]): Map<string, SpanData> {
  const map = new Map<string, SpanData>();
  // A span stored twice (a retried delivery): the last one, as the ledger gives them in order.
  for (const span of spans) map.set(span.spanId, span);
  return map;
}

/** Every span id a decision reads. */
function named(decision: InteractionDecision): string[] {
  return [decision.rootSpanId, ...decision.memberSpanIds, ...decision.nested.map((nested) => nested.spanId)];
}

function buildFromDecision(decision: InteractionDecision, spans: Map<string, SpanData>): InteractionRecord | undefined {
  const root = spans.get(decision.rootSpanId);
  if (!root) return undefined;
  const members: SpanData[] = [];
  for (const id of decision.memberSpanIds) {
    const span = spans.get(id);
    if (span) members.push(span);
  }
  const nested = decision.nested.flatMap(({ spanId, interactionId }) => {
    const span = spans.get(spanId);
    return span ? [{ span, interactionId, agentId: agentIdOf(span) }] : [];
  });
  return buildInteractionRecord({
    root,
    spans: members,
    nested,
    flowId: decision.flowId,
    completion: decision.completion,
  });
}
