/**
 * Where a stored batch's spans go: to the assembler, or, while it holds `max_pending_traces`, to the
 * traces waiting for its room (waiting-traces.ts), which go to it oldest first as recording frees
 * room (`admitWaiting`, at each tick). A trace the assembler knows (pending, or decided and
 * remembered for its late spans) always goes to it; a trace that waits gets its later spans in the
 * same place. While any trace waits, new ones wait after it, so traces reach the assembler in the
 * order they arrived. With `max_waiting_traces` 0 every trace goes to the assembler, which decides
 * the oldest early past its limit (evicts).
 *
 * Nothing of a waiting trace is in the assembler, and nothing of it is ever added there except by
 * `admitWaiting`, all at once: so none of its spans can be late when it gets there.
 */
import type { AddResult, Assembler } from './assembler.ts';
import { selectTraces, type PreparedSpans } from './prepared-spans.ts';
import { createWaitingTraces, type WaitingTraces } from './waiting-traces.ts';

export interface IntakeLimits {
  maxPendingTraces: number;
  maxWaitingTraces: number;
}

export interface Intake {
  readonly waiting: WaitingTraces;
  /**
   * Adds a stored batch's spans: the late spans the assembler found among them, and the traces that
   * wait instead.
   */
  add(prepared: PreparedSpans, now: number): { late: AddResult['late']; waited: string[] };
  /** Moves the traces waiting longest to the assembler while it has room; how many moved. */
  admitWaiting(now: number): number;
  /** Traces held: pending in the assembler, and waiting. */
  held(): number;
}

export function createIntake(assembler: Assembler, limits: IntakeLimits): Intake {
  const waiting = createWaitingTraces();
  return {
    waiting,

    add(prepared, now) {
      const traceCount = prepared.traceIds.length;
      const waits = new Uint8Array(traceCount);
      const waited: string[] = [];
      let opened = 0;
      for (let trace = 0; trace < traceCount; trace++) {
        const traceId = prepared.traceIds[trace];
        if (!waiting.has(traceId)) {
          if (assembler.knows(traceId)) continue;
          const room =
            waiting.size === 0 && waited.length === 0 && assembler.pendingTraces() + opened < limits.maxPendingTraces;
          if (room || limits.maxWaitingTraces === 0) {
            opened++;
            continue;
          }
        }
        waits[trace] = 1;
        waited.push(traceId);
      }
      if (waited.length === 0) return { late: assembler.addPrepared(prepared, now).late, waited };
      let late: AddResult['late'] = [];
      if (waited.length < traceCount) {
        const taken = waits.map((one) => 1 - one);
        late = assembler.addPrepared(selectTraces(prepared, taken), now).late;
      }
      waiting.add(prepared, waits);
      return { late, waited };
    },

    admitWaiting(now) {
      const room = limits.maxPendingTraces - assembler.pendingTraces();
      if (room <= 0 || waiting.size === 0) return 0;
      const before = waiting.size;
      for (const part of waiting.take(room)) assembler.addPrepared(part, now);
      return before - waiting.size;
    },

    held: () => assembler.pendingTraces() + waiting.size,
  };
}
