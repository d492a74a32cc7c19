/** Builds SpanData for tests: only what a test names differs from a plain internal span. */
import {
  SPAN_FLAGS_HAS_IS_REMOTE,
  SPAN_FLAGS_IS_REMOTE,
  type Attributes,
  type SpanData,
} from '../../../../../collector/model/span.ts';

export const TRACE_A = '0af7651916cd43dd8448eb211c80319c';
export const TRACE_B = '4bf92f3577b34da6a3ce929d0e0e4736';

let counter = 0;

export function spanId(n: number): string {
  return n.toString(16).padStart(16, '0');
}

export interface SpanSpec {
  traceId?: string;
  id: number | string;
  parent?: number | string;
  name?: string;
  attributes?: Attributes;
  /** 'local' (default when a parent is given), 'remote', or 'unknown' (old exporters without the bits). */
  parentIs?: 'local' | 'remote' | 'unknown';
  start?: number;
  end?: number;
  status?: { code: number; message?: string };
  service?: string;
}

export function span(spec: SpanSpec): SpanData {
  const id = typeof spec.id === 'number' ? spanId(spec.id) : spec.id;
  const parent =
    spec.parent === undefined ? undefined : typeof spec.parent === 'number' ? spanId(spec.parent) : spec.parent;
  const parentIs = spec.parentIs ?? 'local';
  let flags = 1;
  if (parentIs !== 'unknown') flags |= SPAN_FLAGS_HAS_IS_REMOTE;
  if (parent !== undefined && parentIs === 'remote') flags |= SPAN_FLAGS_IS_REMOTE;
  const start = spec.start ?? 1_700_000_000_000_000_000 + counter++ * 1_000_000;
  return {
    traceId: spec.traceId ?? TRACE_A,
    spanId: id,
    parentSpanId: parent,
    name: spec.name ?? 'span',
    kind: 1,
    startTimeUnixNano: start,
    endTimeUnixNano: spec.end ?? start + 5_000_000,
    attributes: spec.attributes ?? {},
    events: [],
    links: [],
    status: spec.status ?? { code: 0 },
    flags,
    origin: { resource: { 'service.name': spec.service ?? 'test-service' }, scopeName: 'test' },
  };
}

/** An `invoke_agent` span; `agent` undefined gives an invocation without identity (like the Anthropic tool runner). */
export function agentSpan(spec: SpanSpec & { agent?: string }): SpanData {
  const attributes: Attributes = { 'gen_ai.operation.name': 'invoke_agent', ...spec.attributes };
  if (spec.agent !== undefined) attributes['gen_ai.agent.id'] = spec.agent;
  return span({ name: spec.agent ? `invoke_agent ${spec.agent}` : 'invoke_agent', ...spec, attributes });
}
