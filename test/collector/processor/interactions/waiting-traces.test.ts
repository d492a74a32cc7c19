/**
 * Traces waiting for the assembler's room (waiting-traces.ts) and where a stored batch's traces go
 * (intake.ts): oldest first, each with every span received of it in the order received, the
 * conversations their invocations name counted while they wait, and a split batch's parts kept at
 * their size.
 */
import { describe, expect, it } from 'vitest';
import { createAssembler } from '../../../../collector/processor/interactions/assembler.ts';
import { classifyInvocation } from '../../../../collector/processor/interactions/classify.ts';
import { createIntake } from '../../../../collector/processor/interactions/intake.ts';
import {
  PREPARED_FIELDS,
  SPAN_LOW,
  TRACE,
  invocationOf,
  prepareSpans,
  selectTraces,
  type PreparedSpans,
} from '../../../../collector/processor/interactions/prepared-spans.ts';
import { createWaitingTraces } from '../../../../collector/processor/interactions/waiting-traces.ts';
import { agentSpan, span } from './helpers/span-builder.ts';

const trace = (n: number) => n.toString(16).padStart(32, '0');

/** Batch of spans: [trace number, span number, parent number?, conversation?] each. */
function prepared(...spans: Array<[number, number, number?, string?]>): PreparedSpans {
  return prepareSpans(
    spans.map(([t, id, parent, conversation]) =>
      parent === undefined
        ? agentSpan({
            traceId: trace(t),
            id,
            agent: 'shop',
            ...(conversation ? { attributes: { 'gen_ai.conversation.id': conversation } } : {}),
          })
        : span({ traceId: trace(t), id, parent, name: 'chat', attributes: { 'gen_ai.operation.name': 'chat' } }),
    ),
    classifyInvocation,
  );
}

/** Each part's spans as `trace:span` pairs, by trace number. */
function spansOf(parts: PreparedSpans[]): string[][] {
  return parts.map((part) => {
    const out: string[] = [];
    for (let at = 0; at < part.count * PREPARED_FIELDS; at += PREPARED_FIELDS) {
      out.push(`${Number.parseInt(part.traceIds[part.numbers[at + TRACE]], 16)}:${part.numbers[at + SPAN_LOW]}`);
    }
    return out;
  });
}

describe('waiting traces', () => {
  it('gives the traces waiting longest, each with all its spans, in the order they were received', () => {
    const waiting = createWaitingTraces();
    waiting.add(prepared([1, 1], [2, 1]), new Uint8Array([1, 1]));
    waiting.add(prepared([3, 1]), new Uint8Array([1]));
    waiting.add(prepared([3, 2, 1], [1, 2, 1]), new Uint8Array([1, 1]));
    expect([waiting.size, waiting.spans]).toEqual([3, 5]);
    // Trace 1 arrived first, then 2: both taken, trace 1 with its later span, from the batches in order.
    expect(spansOf(waiting.take(2))).toEqual([['1:1', '2:1'], ['1:2']]);
    expect([waiting.size, waiting.spans, waiting.has(trace(1)), waiting.has(trace(3))]).toEqual([1, 2, false, true]);
    expect(spansOf(waiting.take(10))).toEqual([['3:1'], ['3:2']]);
    expect([waiting.size, waiting.spans]).toEqual([0, 0]);
    expect(waiting.take(10)).toEqual([]);
  });

  it('keeps only the traces of a batch that wait, and counts the conversations their invocations name', () => {
    const waiting = createWaitingTraces();
    const batch = prepared([1, 1, undefined, 'c-1'], [2, 1, undefined, 'c-2'], [1, 2, 1]);
    waiting.add(batch, new Uint8Array([1, 0]));
    expect([waiting.size, waiting.spans]).toEqual([1, 2]);
    expect([waiting.hasConversation('c-1'), waiting.hasConversation('c-2')]).toEqual([true, false]);
    const [part] = waiting.take(1);
    expect(spansOf([part])).toEqual([['1:1', '1:2']]);
    expect(invocationOf(part, 0)?.conversationId).toBe('c-1');
    expect(waiting.hasConversation('c-1')).toBe(false);
  });

  it('selects traces with their kinds and invocations, numbered afresh', () => {
    const batch = prepared([1, 1], [2, 1, undefined, 'c-2'], [1, 2, 1], [2, 2, 1]);
    const second = selectTraces(batch, new Uint8Array([0, 1]));
    expect(second.traceIds).toEqual([trace(2)]);
    expect(spansOf([second])).toEqual([['2:1', '2:2']]);
    expect(invocationOf(second, 0)?.conversationId).toBe('c-2');
    expect(invocationOf(second, 1)).toBeUndefined();
    expect(selectTraces(batch, new Uint8Array([0, 0])).count).toBe(0);
  });
});

describe('the intake', () => {
  const assemblerOf = (maxPendingTraces: number) =>
    createAssembler({ settleMs: 1_000, decisionWaitMs: 5_000, maxPendingTraces, granularityMs: 10 });

  it('fills the assembler, then new traces wait; a known trace goes to the assembler, a waiting one waits', () => {
    const assembler = assemblerOf(2);
    const intake = createIntake(assembler, { maxPendingTraces: 2, maxWaitingTraces: 10 });
    expect(intake.add(prepared([1, 1], [2, 1], [3, 1]), 0).waited).toEqual([trace(3)]);
    // Trace 1 is pending and trace 3 waits: each span goes where its trace is; trace 4 waits after 3.
    expect(intake.add(prepared([1, 2, 1], [3, 2, 1], [4, 1]), 10).waited).toEqual([trace(3), trace(4)]);
    expect([assembler.pendingTraces(), assembler.pendingSpans(), intake.waiting.size, intake.held()]).toEqual([
      2, 3, 2, 4,
    ]);
    // No room: nothing moves. Once traces 1 and 2 are decided, the two waiting move, oldest first.
    expect(intake.admitWaiting(20)).toBe(0);
    expect(assembler.collectDue(2_000).interactions.map((decision) => decision.traceId)).toEqual([trace(1), trace(2)]);
    expect(intake.admitWaiting(2_000)).toBe(2);
    expect([assembler.isPending(trace(3)), assembler.isPending(trace(4)), intake.waiting.size]).toEqual([
      true,
      true,
      0,
    ]);
    expect(assembler.pendingSpans()).toBe(3);
    // A span of decided trace 1 goes to the assembler (late), whatever waits.
    intake.add(prepared([5, 1]), 2_010);
    expect(intake.add(prepared([1, 3, 1]), 2_020)).toMatchObject({ late: [{ traceId: trace(1) }], waited: [] });
  });

  it('with max_waiting_traces 0 nothing waits: the assembler takes every trace', () => {
    const assembler = assemblerOf(1);
    const intake = createIntake(assembler, { maxPendingTraces: 1, maxWaitingTraces: 0 });
    expect(intake.add(prepared([1, 1], [2, 1]), 0).waited).toEqual([]);
    expect([assembler.pendingTraces(), intake.waiting.size]).toEqual([2, 0]);
  });
});
