/**
 * Traces acknowledged while the assembler holds `max_pending_traces`: their spans are stored in the
 * ledger like every received span, and wait here, reduced to what the assembler keeps of them
 * (prepared-spans.ts: six integers a span), until it has room. They go to it oldest first (by their
 * first span's arrival), each with every span received of it so far. A waiting trace of 10 spans
 * costs ~0.4 KiB of RSS (its numbers, id and entry here; docs/benchmarks.md, "Ingest"), against
 * ~1.4 KiB for a pending one with its tree, timers and conversation counts; nothing is decided of it
 * while it waits, so nothing of it is late or recorded early.
 */
import { invocationOf, selectTraces, type PreparedSpans } from './prepared-spans.ts';

export interface WaitingTraces {
  /** Traces waiting. */
  readonly size: number;
  /** Spans waiting. */
  readonly spans: number;
  has(traceId: string): boolean;
  /** Whether a waiting invocation names this conversation (a turn of it is on its way). */
  hasConversation(conversationId: string): boolean;
  /** Adds the spans of the traces of `prepared` whose `wanted` entry is set, after what waits of them. */
  add(prepared: PreparedSpans, wanted: Uint8Array): void;
  /**
   * Takes the `max` traces waiting longest, each with all its spans: what the assembler adds, in
   * this order (a trace's spans keep the order they were received in).
   */
  take(max: number): PreparedSpans[];
}

interface WaitingBatch {
  prepared: PreparedSpans;
  /** Its traces still waiting. */
  traces: number;
}

export function createWaitingTraces(): WaitingTraces {
  /** Stored batches (the part of each that waits), by the number they were given in arrival order. */
  const batches = new Map<number, WaitingBatch>();
  let nextBatch = 0;
  /** Each waiting trace's parts, oldest first: a batch's number and the trace's index in it, in pairs. */
  const traces = new Map<string, number[]>();
  const conversations = new Map<string, number>();
  let spans = 0;

  /** Counts (`by` 1) or uncounts (-1) the spans of `prepared` and the conversations its invocations name. */
  function count(prepared: PreparedSpans, by: 1 | -1): void {
    spans += by * prepared.count;
    if (prepared.invocations.every((invocation) => invocation.conversationId === undefined)) return;
    for (let i = 0; i < prepared.count; i++) {
      const conversationId = invocationOf(prepared, i)?.conversationId;
      if (conversationId === undefined) continue;
      const now = (conversations.get(conversationId) ?? 0) + by;
      if (now > 0) conversations.set(conversationId, now);
      else conversations.delete(conversationId);
    }
  }

  return {
    get size() {
      return traces.size;
    },
    get spans() {
      return spans;
    },
    has: (traceId) => traces.has(traceId),
    hasConversation: (conversationId) => conversations.has(conversationId),

    add(prepared, wanted) {
      let all = true;
      for (let trace = 0; trace < prepared.traceIds.length && all; trace++) all = wanted[trace] === 1;
      // What waits is kept at its size: the part of a split batch is copied out of it.
      const kept = all ? prepared : selectTraces(prepared, wanted);
      if (kept.count === 0) return;
      const number = nextBatch++;
      batches.set(number, { prepared: kept, traces: kept.traceIds.length });
      kept.traceIds.forEach((traceId, index) => {
        const parts = traces.get(traceId);
        if (parts) parts.push(number, index);
        else traces.set(traceId, [number, index]);
      });
      count(kept, 1);
    },

    take(max) {
      const wantedByBatch = new Map<number, Uint8Array>();
      let taken = 0;
      // A map's iteration goes on past entries deleted behind it.
      for (const [traceId, parts] of traces) {
        if (taken === max) break;
        traces.delete(traceId);
        taken++;
        for (let i = 0; i < parts.length; i += 2) {
          let wanted = wantedByBatch.get(parts[i]);
          if (!wanted) {
            wanted = new Uint8Array(batches.get(parts[i])!.prepared.traceIds.length);
            wantedByBatch.set(parts[i], wanted);
          }
          wanted[parts[i + 1]] = 1;
        }
      }
      const out: PreparedSpans[] = [];
      for (const number of [...wantedByBatch.keys()].sort((a, b) => a - b)) {
        const batch = batches.get(number)!;
        const wanted = wantedByBatch.get(number)!;
        let traceCount = 0;
        for (const one of wanted) traceCount += one;
        batch.traces -= traceCount;
        if (batch.traces === 0) batches.delete(number);
        const part = traceCount === wanted.length ? batch.prepared : selectTraces(batch.prepared, wanted);
        count(part, -1);
        out.push(part);
      }
      return out;
    },
  };
}
