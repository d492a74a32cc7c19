/**
 * Converts spans exported by the OpenTelemetry JS SDK (`ReadableSpan`, e.g. from an
 * InMemorySpanExporter) into the collector's `SpanData`, as the OTLP receiver would decode them
 * after a real export: kinds shifted to OTLP numbering, times in Unix nanoseconds, the
 * remote-parent flag bits set, resource and scope carried in `origin`.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import {
  SPAN_FLAGS_HAS_IS_REMOTE,
  SPAN_FLAGS_IS_REMOTE,
  type AttributeValue,
  type Attributes,
  type SpanData,
} from '../../collector/model/span.ts';

type HrTime = [number, number];
type OtelAttributes = Record<string, unknown>;

export function readableSpanToSpanData(span: ReadableSpan): SpanData {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  let flags = context.traceFlags | SPAN_FLAGS_HAS_IS_REMOTE;
  if (parent?.isRemote) flags |= SPAN_FLAGS_IS_REMOTE;
  const data: SpanData = {
    traceId: context.traceId,
    spanId: context.spanId,
    name: span.name,
    // @opentelemetry/api numbers kinds from INTERNAL = 0; OTLP from UNSPECIFIED = 0, INTERNAL = 1.
    kind: span.kind + 1,
    startTimeUnixNano: nanos(span.startTime),
    endTimeUnixNano: nanos(span.endTime),
    attributes: attributesOf(span.attributes),
    events: span.events.map((event) => ({
      name: event.name,
      timeUnixNano: nanos(event.time as HrTime),
      attributes: attributesOf(event.attributes ?? {}),
    })),
    links: span.links.map((link) => ({
      traceId: link.context.traceId,
      spanId: link.context.spanId,
      attributes: attributesOf(link.attributes ?? {}),
    })),
    status: span.status.message ? { code: span.status.code, message: span.status.message } : { code: span.status.code },
    flags,
    origin: {
      resource: attributesOf(span.resource.attributes),
      scopeName: span.instrumentationScope.name,
      ...(span.instrumentationScope.version ? { scopeVersion: span.instrumentationScope.version } : undefined),
    },
  };
  if (parent?.spanId) data.parentSpanId = parent.spanId;
  return data;
}

/** Converts every span, in the exporter's order. */
export function readableSpansToSpanData(spans: readonly ReadableSpan[]): SpanData[] {
  return spans.map(readableSpanToSpanData);
}

function nanos([seconds, nanoseconds]: HrTime): number {
  return seconds * 1e9 + nanoseconds;
}

function attributesOf(attributes: OtelAttributes): Attributes {
  const converted: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    const kept = attributeValueOf(value);
    if (kept !== undefined) converted[key] = kept;
  }
  return converted;
}

function attributeValueOf(value: unknown): AttributeValue | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    // OTel JS allows null / undefined holes in homogeneous arrays; OTLP carries them as empty values.
    return value.map((item) => attributeValueOf(item) ?? null);
  }
  return undefined;
}
