/**
 * Spans shaped like what agents really send: GenAI chat, tool and agent spans with ~15 attributes,
 * message content of a few KB on model calls, a shared resource per batch. Deterministic (seeded),
 * used by the store contract, the crash test and the store benchmark.
 */
import type { Attributes, SpanData, SpanOrigin } from '../../collector/model/span.ts';
import { SpanKind, StatusCode } from '../../collector/model/span.ts';

/** A small seeded PRNG (mulberry32) so fixtures are the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hex(random: () => number, length: number): string {
  let out = '';
  while (out.length < length)
    out += Math.floor(random() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, length);
}

const WORDS = (
  'the agent booked a flight to lisbon and then checked the hotel rate ' + 'against the refund policy before answering'
).split(' ');

function prose(random: () => number, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = WORDS[Math.floor(random() * WORDS.length)];
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ');
}

export function makeOrigin(serviceName = 'travel-agent'): SpanOrigin {
  return {
    resource: {
      'service.name': serviceName,
      'service.version': '1.4.2',
      'telemetry.sdk.name': 'opentelemetry',
      'telemetry.sdk.language': 'nodejs',
      'telemetry.sdk.version': '2.0.1',
      'host.name': 'agent-7c9f',
      'process.pid': 4242,
    },
    scopeName: '@opentelemetry/instrumentation-genai',
    scopeVersion: '0.3.0',
  };
}

export interface TraceOptions {
  random: () => number;
  origin: SpanOrigin;
  spans: number;
  startNanos: number;
  /** Extra attributes put on every span (the crash test marks its batch id this way). */
  extra?: Attributes;
}

/** One agent trace: an invoke_agent root, then alternating chat and tool spans under it. */
export function makeTrace(options: TraceOptions): SpanData[] {
  const { random, origin, startNanos } = options;
  const traceId = hex(random, 32);
  const rootId = hex(random, 16);
  const conversationId = `conv-${hex(random, 8)}`;
  const spans: SpanData[] = [];
  let t = startNanos;
  for (let i = 1; i < options.spans; i += 1) {
    const isChat = i % 2 === 1;
    const start = t;
    t += 1_000_000 + Math.floor(random() * 50_000_000);
    const attributes: Attributes = isChat
      ? {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'anthropic',
          'gen_ai.request.model': 'claude-sonnet-4-5',
          'gen_ai.response.model': 'claude-sonnet-4-5-20250929',
          'gen_ai.response.id': `msg_${hex(random, 24)}`,
          'gen_ai.response.finish_reasons': ['tool_use'],
          'gen_ai.usage.input_tokens': 1200 + Math.floor(random() * 3000),
          'gen_ai.usage.output_tokens': 50 + Math.floor(random() * 400),
          'gen_ai.request.max_tokens': 4096,
          'gen_ai.request.temperature': 0.2,
          'gen_ai.conversation.id': conversationId,
          'server.address': 'api.anthropic.com',
          'server.port': 443,
          'gen_ai.input.messages': JSON.stringify([
            { role: 'system', parts: [{ type: 'text', content: prose(random, 1200) }] },
            { role: 'user', parts: [{ type: 'text', content: prose(random, 800 + Math.floor(random() * 2000)) }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([
            {
              role: 'assistant',
              parts: [
                { type: 'tool_call', id: `toolu_${hex(random, 12)}`, name: 'search_flights', arguments: { to: 'LIS' } },
              ],
            },
          ]),
        }
      : {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'search_flights',
          'gen_ai.tool.call.id': `toolu_${hex(random, 12)}`,
          'gen_ai.tool.type': 'function',
          'gen_ai.tool.call.arguments': JSON.stringify({ from: 'BER', to: 'LIS', date: '2025-06-01', passengers: 2 }),
          'gen_ai.tool.call.result': JSON.stringify({
            flights: [
              { id: 'TP541', price: 182.4 },
              { id: 'FR1234', price: 96 },
            ],
            note: prose(random, 300),
          }),
          'gen_ai.conversation.id': conversationId,
          'code.function': 'searchFlights',
          'code.namespace': 'tools/flights',
          'thread.id': 1,
          'evalon.attempt': 1,
          'tool.cached': random() < 0.5,
          'tool.latency_ms': Math.floor(random() * 900),
          'tool.tags': ['travel', 'search'],
          'tool.raw': new Uint8Array([1, 2, 3, 250, 251]),
        };
    spans.push({
      traceId,
      spanId: hex(random, 16),
      parentSpanId: rootId,
      name: isChat ? 'chat claude-sonnet-4-5' : 'execute_tool search_flights',
      kind: isChat ? SpanKind.CLIENT : SpanKind.INTERNAL,
      startTimeUnixNano: start,
      endTimeUnixNano: t,
      attributes: { ...attributes, ...options.extra },
      events: isChat ? [] : [{ name: 'tool.progress', timeUnixNano: start + 1000, attributes: { step: 'query' } }],
      links: [],
      status: { code: StatusCode.UNSET },
      flags: 0x301,
      origin,
    });
  }
  spans.push({
    traceId,
    spanId: rootId,
    name: 'invoke_agent travel-agent',
    kind: SpanKind.INTERNAL,
    startTimeUnixNano: startNanos,
    endTimeUnixNano: t + 1_000_000,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'travel-agent',
      'gen_ai.agent.id': 'travel-agent',
      'gen_ai.conversation.id': conversationId,
      'evalon.agent.roles': ['booking', 'support'],
      'gen_ai.usage.input_tokens': 9000,
      'gen_ai.usage.output_tokens': 800,
      ...options.extra,
    },
    events: [],
    links: [],
    status: { code: StatusCode.OK },
    flags: 0x101,
    origin,
  });
  return spans;
}

/** One OTLP request's worth of spans: `traces` traces of `spansPerTrace` spans, one resource. */
export function makeBatch(random: () => number, traces: number, spansPerTrace: number, extra?: Attributes): SpanData[] {
  const origin = makeOrigin();
  const batch: SpanData[] = [];
  const startNanos = 1_750_000_000_000_000_000;
  for (let i = 0; i < traces; i += 1) {
    batch.push(...makeTrace({ random, origin, spans: spansPerTrace, startNanos: startNanos + i * 1e9, extra }));
  }
  return batch;
}
