/**
 * Small, exact fixtures for the ledger contract: a span holding every attribute value type, and
 * interaction records. Nothing here has `undefined`-valued properties, so round trips can be
 * compared strictly whatever the store's encoding.
 */
import type { InteractionRecord } from '../../src/model/records.ts';
import type { SpanData } from '../../collector/model/span.ts';
import { SPAN_FLAGS_HAS_IS_REMOTE, SpanKind, StatusCode } from '../../collector/model/span.ts';

export const TRACE_A = `${'a'.repeat(31)}1`;
export const TRACE_B = `${'b'.repeat(31)}2`;
export const TRACE_C = `${'c'.repeat(31)}3`;

/** A span whose attributes, events and links use every OTLP value type (bytes, kvlist, arrays...). */
export function richSpan(traceId: string, spanId: string, parentSpanId?: string): SpanData {
  const span: SpanData = {
    traceId,
    spanId,
    name: `chat ${spanId}`,
    kind: SpanKind.CLIENT,
    // Nanosecond times past 2^53: the doubles nearest them, as the decoder would produce them.
    startTimeUnixNano: Number(1_750_000_000_123_456_789n),
    endTimeUnixNano: Number(1_750_000_001_987_654_321n),
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 1234,
      'gen_ai.request.temperature': 0.25,
      negative: -42.5,
      'big.int': Number.MAX_SAFE_INTEGER,
      'tool.cached': false,
      truthy: true,
      nothing: null,
      bytes: new Uint8Array([0, 1, 2, 127, 128, 254, 255]),
      'empty.bytes': new Uint8Array(0),
      'gen_ai.response.finish_reasons': ['stop', 'tool_use'],
      'mixed.array': [1, 'two', true, null, [3, [4]], { five: 5 }, new Uint8Array([6])],
      'empty.array': [],
      kvlist: { nested: { deeper: ['x', { y: new Uint8Array([9, 9]) }] }, n: 1 },
      'empty.kvlist': {},
      unicode: 'Grüße, 世界 🌍 — "quoted" \\ back\nslash',
      'empty.string': '',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'x'.repeat(4000) }] }]),
    },
    events: [
      {
        name: 'gen_ai.choice',
        timeUnixNano: 1_750_000_001_000_000_000,
        attributes: { index: 0, payload: new Uint8Array([7]) },
      },
      {
        name: 'exception',
        timeUnixNano: 1_750_000_001_500_000_000,
        attributes: { 'exception.type': 'TimeoutError', 'exception.stacktrace': 'at x\nat y' },
      },
    ],
    links: [{ traceId: TRACE_C, spanId: 'f'.repeat(16), attributes: { 'link.kind': 'follows', weight: 0.5 } }],
    status: { code: StatusCode.ERROR, message: 'upstream timed out' },
    flags: 0x01 | SPAN_FLAGS_HAS_IS_REMOTE,
    origin: {
      resource: { 'service.name': 'travel-agent', 'process.pid': 4242, 'host.tags': ['a', 'b'] },
      scopeName: 'evalon-test',
      scopeVersion: '1.2.3',
    },
  };
  if (parentSpanId !== undefined) span.parentSpanId = parentSpanId;
  return span;
}

/** A plain span of `traceId`, numbered so tests can tell spans apart. */
export function plainSpan(traceId: string, n: number): SpanData {
  return {
    traceId,
    spanId: n.toString(16).padStart(16, '0'),
    parentSpanId: `${'0'.repeat(15)}1`,
    name: `span ${n}`,
    kind: SpanKind.INTERNAL,
    startTimeUnixNano: 1_750_000_000_000_000_000 + n,
    endTimeUnixNano: 1_750_000_000_000_000_000 + n + 1000,
    attributes: { n },
    events: [],
    links: [],
    status: { code: StatusCode.UNSET },
    flags: 0,
    origin: { resource: { 'service.name': 'svc' }, scopeName: 'scope' },
  };
}

let recordCounter = 0;

/** An interaction record; `overrides` replaces fields (ids derive from `n` when not given). */
export function makeRecord(overrides: Partial<InteractionRecord> & { endTime: string }): InteractionRecord {
  recordCounter += 1;
  const traceId = overrides.traceId ?? recordCounter.toString(16).padStart(32, '0');
  const spanId = overrides.spanId ?? recordCounter.toString(16).padStart(16, '0');
  return {
    interactionId: `${traceId}-${spanId}`,
    traceId,
    spanId,
    agentId: 'travel-agent',
    agentName: 'Travel agent',
    roles: ['booking'],
    conversationId: 'conv-1',
    startTime: new Date(Date.parse(overrides.endTime) - 1500).toISOString(),
    durationMs: 1500,
    failed: false,
    input: [{ role: 'user', parts: [{ type: 'text', content: 'Book me a flight to Lisbon' }] }],
    output: [{ role: 'assistant', parts: [{ type: 'text', content: 'Booked TP541.' }], finishReason: 'stop' }],
    finalResponseText: 'Booked TP541.',
    transcript: [
      { type: 'message', role: 'user', content: 'Book me a flight to Lisbon' },
      {
        type: 'tool_call',
        name: 'search_flights',
        callId: 'toolu_1',
        arguments: { to: 'LIS' },
        result: { flights: ['TP541'] },
      },
      { type: 'message', role: 'assistant', content: 'Booked TP541.' },
    ],
    toolCalls: [
      { name: 'search_flights', callId: 'toolu_1', arguments: { to: 'LIS' }, result: { flights: ['TP541'] } },
    ],
    model: 'claude-sonnet-4-5',
    provider: 'anthropic',
    usage: { inputTokens: 1200, outputTokens: 80 },
    attributes: { 'gen_ai.agent.id': 'travel-agent' },
    completion: 'structural',
    ...overrides,
  };
}
