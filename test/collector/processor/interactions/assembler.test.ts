import { describe, expect, it } from 'vitest';
import type { SpanHead } from '../../../../collector/model/span.ts';
import {
  createAssembler,
  type AssemblerOptions,
  type Decisions,
} from '../../../../collector/processor/interactions/assembler.ts';
import type { Invocation } from '../../../../collector/processor/interactions/classify.ts';
import { agentSpan, span, spanId, TRACE_A, TRACE_B } from './helpers/span-builder.ts';

// The dialects have their own tests; here an invocation is any span with gen_ai.operation.name = invoke_agent.
function classify(s: SpanHead): Invocation | undefined {
  if (s.attributes['gen_ai.operation.name'] !== 'invoke_agent') return undefined;
  const id = s.attributes['gen_ai.agent.id'];
  const conversationId = s.attributes['gen_ai.conversation.id'];
  return {
    dialect: 'semconv',
    agentIdentity: typeof id === 'string' ? id : undefined,
    ...(typeof conversationId === 'string' ? { conversationId } : {}),
  };
}

function assembler(overrides: Partial<AssemblerOptions> = {}) {
  return createAssembler({ settleMs: 2_000, decisionWaitMs: 30_000, maxPendingTraces: 1_000, classify, ...overrides });
}

const ids = (d: Decisions) => d.interactions.map((i) => i.interactionId);
const id = (n: number, trace = TRACE_A) => `${trace}-${spanId(n)}`;

describe('interaction assembly', () => {
  it(
    'completes an interaction when its invocation span and all children have arrived and the settle window ' + 'passed',
    () => {
      const a = assembler();
      a.add([span({ id: 2, parent: 1 }), span({ id: 3, parent: 2 }), agentSpan({ id: 1, agent: 'support-agent' })], 0);
      expect(ids(a.collectDue(1_900))).toEqual([]);
      const done = a.collectDue(2_000);
      expect(done.interactions).toHaveLength(1);
      expect(done.interactions[0]).toMatchObject({ interactionId: id(1), completion: 'structural', flowId: undefined });
      expect(done.interactions[0].memberSpanIds.sort()).toEqual([spanId(1), spanId(2), spanId(3)]);
      expect(done.releasedTraces).toEqual([TRACE_A]);
      expect(a.pendingTraces()).toBe(0);
    },
  );

  it('restarts the settle window when a new span of the interaction arrives', () => {
    const a = assembler();
    a.add([agentSpan({ id: 1, agent: 'x' })], 0);
    a.add([span({ id: 2, parent: 1 })], 1_500);
    expect(ids(a.collectDue(2_000))).toEqual([]);
    expect(ids(a.collectDue(3_500))).toEqual([id(1)]);
  });

  it('keeps its settle windows weeks after it started (times past what fits a small integer)', () => {
    const a = assembler();
    a.add([agentSpan({ id: 1, agent: 'x' })], 1_000); // its clock starts here
    expect(ids(a.collectDue(3_000))).toEqual([id(1)]);
    for (const days of [13, 25, 50]) {
      const at = 1_000 + days * 86_400_000;
      a.add([agentSpan({ id: days, agent: 'x' })], at);
      a.add([span({ id: days + 100, parent: days })], at + 1_500);
      expect(ids(a.collectDue(at + 3_000))).toEqual([]);
      expect(ids(a.collectDue(at + 3_500))).toEqual([id(days)]);
    }
  });

  it('waits for a span whose parent is missing, since it may belong to the interaction', () => {
    const a = assembler();
    // The tool span 3 points to the model-call span 2, which has not arrived.
    a.add([agentSpan({ id: 1, agent: 'x' }), span({ id: 3, parent: 2 })], 0);
    expect(ids(a.collectDue(10_000))).toEqual([]);
    a.add([span({ id: 2, parent: 1 })], 10_000);
    const done = a.collectDue(12_000);
    expect(ids(done)).toEqual([id(1)]);
    expect(done.interactions[0].memberSpanIds).toHaveLength(3);
  });

  it('is not held up by a span hanging off its own ancestors', () => {
    const a = assembler();
    // 10 is the application's request span, still running; 11 is a sibling of the agent under it.
    a.add([agentSpan({ id: 1, parent: 10, agent: 'x' }), span({ id: 11, parent: 10 })], 0);
    expect(ids(a.collectDue(2_000))).toEqual([id(1)]);
  });

  it(
    'merges a nested invocation without agent identity into the enclosing interaction, waiting for the ' +
      'enclosing span',
    () => {
      const a = assembler();
      // The tool runner (no identity) ends first; the application's invoke_agent span arrives later.
      a.add(
        [
          agentSpan({ id: 2, parent: 1 }),
          span({ id: 3, parent: 2, name: 'chat' }),
          span({ id: 4, parent: 2, name: 'execute_tool' }),
        ],
        0,
      );
      expect(ids(a.collectDue(20_000))).toEqual([]);
      a.add([agentSpan({ id: 1, agent: 'support-agent' })], 20_000);
      const done = a.collectDue(22_000);
      expect(ids(done)).toEqual([id(1)]);
      expect(done.interactions[0].memberSpanIds.sort()).toEqual([1, 2, 3, 4].map(spanId));
    },
  );

  it('merges a nested invocation of the same agent', () => {
    const a = assembler();
    a.add([agentSpan({ id: 2, parent: 1, agent: 'a' }), agentSpan({ id: 1, agent: 'a' })], 0);
    expect(ids(a.collectDue(2_000))).toEqual([id(1)]);
  });

  it('makes a nested invocation of another agent an interaction of its own, with the enclosing one as flowId', () => {
    const a = assembler();
    a.add(
      [
        agentSpan({ id: 3, parent: 2, agent: 'billing-agent' }),
        span({ id: 4, parent: 3 }),
        span({ id: 2, parent: 1, name: 'execute_tool ask_billing' }),
        agentSpan({ id: 1, agent: 'support-agent' }),
      ],
      0,
    );
    const done = a.collectDue(2_000);
    const byId = new Map(done.interactions.map((i) => [i.interactionId, i]));
    expect([...byId.keys()].sort()).toEqual([id(1), id(3)].sort());
    expect(byId.get(id(3))).toMatchObject({ flowId: id(1) });
    expect(byId.get(id(3))!.memberSpanIds.sort()).toEqual([3, 4].map(spanId));
    expect(byId.get(id(1))!.memberSpanIds.sort()).toEqual([1, 2].map(spanId));
    expect(byId.get(id(1))!.nested).toEqual([{ spanId: spanId(3), interactionId: id(3) }]);
  });

  it('completes an agent with its own identity whose parent never arrives, after the settle window', () => {
    const a = assembler();
    a.add([agentSpan({ id: 1, parent: 99, agent: 'x', parentIs: 'unknown' })], 0);
    expect(a.collectDue(2_000).interactions).toMatchObject([{ interactionId: id(1), completion: 'structural' }]);
  });

  it('treats a remote parent as the end of the chain', () => {
    const a = assembler();
    a.add([agentSpan({ id: 1, parent: 99, parentIs: 'remote' })], 0);
    expect(a.collectDue(2_000).interactions).toMatchObject([{ interactionId: id(1), completion: 'structural' }]);
  });

  it('falls back to decision_wait after the last span, marking the interaction timeout', () => {
    const a = assembler();
    // No identity and a local parent that never arrives: it might belong to an enclosing agent.
    a.add([agentSpan({ id: 2, parent: 1 })], 0);
    expect(ids(a.collectDue(29_900))).toEqual([]);
    const done = a.collectDue(30_000);
    expect(done.interactions).toMatchObject([{ interactionId: id(2), completion: 'timeout' }]);
    expect(done.releasedTraces).toEqual([TRACE_A]);
    expect(a.stats.completed).toEqual({ structural: 0, timeout: 1 });
  });

  it('keeps an interaction that was structurally complete structural when it is checked after decision_wait', () => {
    const a = assembler();
    // A tick late by more than decision_wait (a loaded collector): what was complete is still complete.
    a.add([span({ id: 2, parent: 1 }), agentSpan({ id: 1, agent: 'x' })], 0);
    // Beside it, one that was not: its local parent never arrived.
    a.add([agentSpan({ id: 4, parent: 3, traceId: TRACE_B })], 0);
    const done = a.collectDue(31_000);
    expect(done.interactions).toHaveLength(2);
    expect(done.interactions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ interactionId: id(1), completion: 'structural' }),
        expect.objectContaining({ interactionId: id(4, TRACE_B), completion: 'timeout' }),
      ]),
    );
    expect(a.stats.completed).toEqual({ structural: 1, timeout: 1 });
  });

  it('records spans of an already completed interaction as late, never merging them', () => {
    const a = assembler();
    a.add([agentSpan({ id: 1, agent: 'x' })], 0);
    expect(ids(a.collectDue(2_000))).toEqual([id(1)]);
    const result = a.add([span({ id: 5, parent: 1 })], 3_000);
    expect(result.late.map((l) => [l.spanId, l.interactionId])).toEqual([[spanId(5), id(1)]]);
    const child = a.add([span({ id: 6, parent: 5 })], 3_100);
    expect(child.late).toHaveLength(1);
    expect(a.collectDue(60_000).interactions).toEqual([]);
    expect(a.stats.lateSpans).toBe(2);
  });

  it('ignores a span delivered twice', () => {
    const a = assembler();
    a.add([agentSpan({ id: 1, agent: 'x' }), span({ id: 2, parent: 1 })], 0);
    expect(a.add([span({ id: 2, parent: 1 })], 100).duplicates).toBe(1);
    expect(a.collectDue(2_100).interactions[0].memberSpanIds).toHaveLength(2);
    expect(a.add([span({ id: 2, parent: 1 })], 3_000).duplicates).toBe(1);
    // Delivered again after its trace was decided: nothing of it is pending.
    expect(a.pendingTraces()).toBe(0);
    expect(a.collectDue(60_000).releasedTraces).toEqual([]);
  });

  it('keeps a trace open for a new interaction after an earlier one completed', () => {
    const a = assembler();
    a.add([agentSpan({ id: 1, parent: 10, agent: 'x' })], 0);
    expect(ids(a.collectDue(2_000))).toEqual([id(1)]);
    a.add([agentSpan({ id: 2, parent: 10, agent: 'x' })], 5_000);
    expect(ids(a.collectDue(7_000))).toEqual([id(2)]);
  });

  it('releases a trace without any invocation once settled, counting its spans as unassigned', () => {
    const a = assembler();
    a.add([span({ id: 1 }), span({ id: 2, parent: 1 })], 0);
    const done = a.collectDue(2_000);
    expect(done.interactions).toEqual([]);
    expect(done.releasedTraces).toEqual([TRACE_A]);
    expect(done.unassignedSpans).toBe(2);
  });

  it('bounds memory: above max_pending_traces the oldest trace is decided early and counted', () => {
    const evicted: string[] = [];
    const a = assembler({ maxPendingTraces: 1, onEvict: (traceId) => evicted.push(traceId) });
    a.add([agentSpan({ id: 2, parent: 1, traceId: TRACE_A })], 0);
    a.add([agentSpan({ id: 2, parent: 1, traceId: TRACE_B })], 10);
    const done = a.collectDue(20);
    expect(evicted).toEqual([TRACE_A]);
    expect(done.interactions).toMatchObject([{ interactionId: id(2, TRACE_A), completion: 'timeout' }]);
    expect(a.pendingTraces()).toBe(1);
    expect(a.stats.evictedTraces).toBe(1);
  });

  it('decides a trace whose spans name each other as parents (never legitimate) instead of hanging', () => {
    const a = assembler();
    a.add([agentSpan({ id: 1, parent: 2 }), span({ id: 2, parent: 1 }), span({ id: 3, parent: 3 })], 0);
    const done = a.collectDue(30_000);
    expect(done.releasedTraces).toEqual([TRACE_A]);
    expect(a.pendingTraces()).toBe(0);
  });

  it('keeps a trace of thousands of spans, arriving over many batches, children before parents', () => {
    const a = assembler();
    // Agent 1, its children 2..2001 in reverse order of arrival, each with a child of its own.
    const children = Array.from({ length: 2000 }, (_, i) => 2001 - i);
    for (let batch = 0; batch < 20; batch++) {
      const ids = children.slice(batch * 100, batch * 100 + 100);
      a.add(
        ids.flatMap((n) => [span({ id: n + 10_000, parent: n }), span({ id: n, parent: 1 })]),
        batch,
      );
    }
    expect(a.add([span({ id: 5, parent: 1 })], 30).duplicates).toBe(1);
    expect(ids(a.collectDue(2_000))).toEqual([]);
    a.add([agentSpan({ id: 1, agent: 'x' })], 2_000);
    const done = a.collectDue(4_000);
    expect(ids(done)).toEqual([id(1)]);
    expect(done.interactions[0].memberSpanIds).toHaveLength(4001);
    expect(new Set(done.interactions[0].memberSpanIds).size).toBe(4001);
    expect(a.pendingSpans()).toBe(0);
  });

  it('tells apart ids a large trace indexes under one key (equal as 64-bit doubles)', () => {
    const a = assembler();
    // 7fffffff00000000 and 7fffffff00000001 are the same number once rounded to a double.
    const [low, high] = ['7fffffff00000000', '7fffffff00000001'];
    const children = Array.from({ length: 40 }, (_, i) => span({ id: i + 2, parent: 1 }));
    a.add([agentSpan({ id: 1, agent: 'x' }), ...children], 0);
    // Children first, each waiting for its missing parent; then the parents, under the agent.
    a.add([span({ id: 100, parent: high }), span({ id: 101, parent: low })], 10);
    a.add([span({ id: high, parent: 1 }), span({ id: low, parent: high })], 20);
    expect(a.add([span({ id: low, parent: high }), span({ id: high, parent: 1 })], 30).duplicates).toBe(2);
    const done = a.collectDue(2_100);
    expect(ids(done)).toEqual([id(1)]);
    expect(done.interactions[0].memberSpanIds).toHaveLength(45);
    expect(done.interactions[0].memberSpanIds).toEqual(expect.arrayContaining([low, high, spanId(100), spanId(101)]));
  });

  it('recognises late spans and retried deliveries of a trace decided, released and reopened', () => {
    const a = assembler();
    a.add([agentSpan({ id: 1, agent: 'x' }), span({ id: 2, parent: 1 })], 0);
    expect(ids(a.collectDue(2_000))).toEqual([id(1)]);
    // Reopened by a new interaction of the same trace, then decided and released again.
    a.add([agentSpan({ id: 3, agent: 'y' })], 3_000);
    expect(ids(a.collectDue(5_000))).toEqual([id(3)]);
    const later = a.add([span({ id: 2, parent: 1 }), span({ id: 4, parent: 2 }), span({ id: 5, parent: 3 })], 6_000);
    expect(later.duplicates).toBe(1);
    expect(later.late.map((l) => [l.spanId, l.interactionId])).toEqual([
      [spanId(4), id(1)],
      [spanId(5), id(3)],
    ]);
    expect(a.pendingTraces()).toBe(0);
  });

  it('decides a backlog in calls of a bounded number of spans, the rest first on the next call', () => {
    const a = assembler();
    const traces = Array.from({ length: 10 }, (_, i) => (i + 1).toString(16).padStart(32, 'c'));
    for (const traceId of traces) {
      a.add(
        [
          agentSpan({ id: 1, agent: 'x', traceId }),
          span({ id: 2, parent: 1, traceId }),
          span({ id: 3, parent: 1, traceId }),
        ],
        0,
      );
    }
    const first = a.collectDue(2_000, 7);
    expect(first.interactions).toHaveLength(3);
    expect(first.more).toBe(true);
    const rest = [first];
    while (rest.at(-1)!.more) rest.push(a.collectDue(2_000, 7));
    const decided = rest.flatMap((d) => d.interactions.map((i) => i.traceId));
    expect(decided).toEqual(traces);
    expect(rest.at(-1)!.more).toBe(false);
    expect(a.pendingTraces()).toBe(0);
  });

  it('keeps the spans of the traces still pending when a burst is over and their array is compacted', () => {
    const a = assembler({ maxPendingTraces: 10_000 });
    // A burst: 3,000 traces of six spans, enough to grow the assembler's span array past its first size.
    for (let t = 0; t < 3_000; t++) {
      const traceId = `b${t.toString(16).padStart(31, '0')}`;
      a.add(
        [agentSpan({ id: 1, agent: 'x', traceId }), ...[2, 3, 4, 5, 6].map((n) => span({ id: n, parent: 1, traceId }))],
        0,
      );
    }
    // Five traces that wait for a span: their tool span's parent (2) has not arrived.
    const waiting = [1, 2, 3, 4, 5].map((t) => t.toString(16).padStart(32, 'e'));
    for (const traceId of waiting) {
      a.add([agentSpan({ id: 1, agent: 'x', traceId }), span({ id: 3, parent: 2, traceId })], 0);
    }
    expect(a.collectDue(2_000).interactions).toHaveLength(3_000);
    // The next tick finds the array mostly empty and moves what is left into a smaller one.
    expect(a.collectDue(2_100).interactions).toEqual([]);
    for (const traceId of waiting) a.add([span({ id: 2, parent: 1, traceId })], 2_500);
    const done = a.collectDue(4_500);
    expect(done.interactions.map((i) => i.traceId).sort()).toEqual(waiting);
    for (const interaction of done.interactions) {
      expect(interaction).toMatchObject({ rootSpanId: spanId(1), completion: 'structural' });
      expect([...interaction.memberSpanIds].sort()).toEqual([spanId(1), spanId(2), spanId(3)]);
    }
    expect(a.pendingTraces()).toBe(0);
  });

  it('decides every pending trace on flushAll', () => {
    const a = assembler();
    a.add([agentSpan({ id: 2, parent: 1 })], 0);
    expect(a.flushAll(5).interactions).toMatchObject([{ completion: 'timeout' }]);
    expect(a.pendingTraces()).toBe(0);
  });

  it('knows which conversations have a turn pending, until the turn is decided or its trace released', () => {
    const a = assembler();
    const inConversation = { 'gen_ai.conversation.id': 'c-1' };
    a.add([agentSpan({ id: 1, agent: 'x', attributes: inConversation })], 0);
    a.add([agentSpan({ traceId: TRACE_B, id: 1, agent: 'x', attributes: inConversation })], 500);
    // Trace B waits for a missing parent of its tool span: its turn stays pending.
    a.add([span({ traceId: TRACE_B, id: 3, parent: 2 })], 500);
    expect(a.hasPendingConversation('c-1')).toBe(true);
    expect(a.hasPendingConversation('c-2')).toBe(false);
    expect(ids(a.collectDue(2_000))).toEqual([id(1)]);
    expect(a.hasPendingConversation('c-1')).toBe(true);
    // Past decision_wait the trace is decided as a timeout: nothing of c-1 is pending any more.
    expect(ids(a.collectDue(31_000))).toEqual([id(1, TRACE_B)]);
    expect(a.hasPendingConversation('c-1')).toBe(false);
  });
});
