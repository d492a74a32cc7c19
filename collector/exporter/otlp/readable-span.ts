/**
 * Received spans (`SpanData`) in the shape the OpenTelemetry JS exporters serialize
 * (`ReadableSpan`), so forwarded spans leave through the same exporter code as Evalon's own.
 *
 * Everything the collector's span model keeps goes out as it came in: ids, parent, name, kind,
 * times, attributes (maps, arrays and bytes included), events, links, status, the trace flags and
 * the remote-parent bit, resource and scope. (The JS exporters always say whether the parent is
 * remote: a span that did not say goes out saying "not remote".) What the model does not keep
 * cannot be forwarded:
 * `trace_state`, dropped counts, schema URLs, scope attributes, link flags, and whether a
 * whole-number attribute was an int or a double (JS has one number type; it goes out as an int).
 */
import type { SpanKind as ApiSpanKind, Attributes as ApiAttributes, HrTime } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import {
  SPAN_FLAGS_HAS_IS_REMOTE,
  hasRemoteParent,
  type Attributes,
  type SpanData,
  type SpanOrigin,
} from '../../model/span.ts';

/** Unix nanoseconds (a double) as [seconds, nanoseconds], exactly: `%` on doubles does not round. */
export function hrTimeOf(nanos: number): HrTime {
  const remainder = nanos % 1e9;
  return [(nanos - remainder) / 1e9, remainder];
}

interface Origin {
  resource: Resource;
  scope: InstrumentationScope;
}

/**
 * Resources and scopes per origin. The exporters group spans by object identity, and the decoder
 * shares one origin object among the spans of one ResourceSpans/ScopeSpans, so one request's
 * grouping survives.
 */
export function createReadableSpanAdapter(): (span: SpanData) => ReadableSpan {
  const origins = new WeakMap<SpanOrigin, Origin>();
  const originOf = (origin: SpanOrigin): Origin => {
    let known = origins.get(origin);
    if (!known) {
      // A plain object, not `resourceFromAttributes`: that drops map-valued attributes, and the
      // serializer reads only `attributes` and `schemaUrl`.
      const resource = { attributes: origin.resource, schemaUrl: undefined } as unknown as Resource;
      const scope: InstrumentationScope =
        origin.scopeVersion !== undefined
          ? { name: origin.scopeName, version: origin.scopeVersion }
          : { name: origin.scopeName };
      known = { resource, scope };
      origins.set(origin, known);
    }
    return known;
  };
  return (span) => toReadableSpan(span, originOf(span.origin));
}

function toReadableSpan(span: SpanData, origin: Origin): ReadableSpan {
  const traceFlags = span.flags & 0xff;
  const spanContext = { traceId: span.traceId, spanId: span.spanId, traceFlags };
  const parentSpanContext =
    span.parentSpanId !== undefined
      ? {
          traceId: span.traceId,
          spanId: span.parentSpanId,
          traceFlags,
          ...((span.flags & SPAN_FLAGS_HAS_IS_REMOTE) !== 0 ? { isRemote: hasRemoteParent(span) } : {}),
        }
      : undefined;
  const startTime = hrTimeOf(span.startTimeUnixNano);
  const endTime = hrTimeOf(span.endTimeUnixNano);
  return {
    name: span.name,
    // OTLP kinds count from UNSPECIFIED = 0, the API's from INTERNAL = 0; the exporter adds 1 back.
    kind: (span.kind === 0 ? undefined : span.kind - 1) as ApiSpanKind,
    spanContext: () => spanContext,
    ...(parentSpanContext ? { parentSpanContext } : {}),
    startTime,
    endTime,
    duration: hrTimeOf(Math.max(0, span.endTimeUnixNano - span.startTimeUnixNano)),
    status:
      span.status.message !== undefined
        ? { code: span.status.code, message: span.status.message }
        : { code: span.status.code },
    attributes: apiAttributes(span.attributes),
    links: span.links.map((link) => ({
      context: { traceId: link.traceId, spanId: link.spanId, traceFlags: 0 },
      attributes: apiAttributes(link.attributes),
    })),
    events: span.events.map((event) => ({
      name: event.name,
      time: hrTimeOf(event.timeUnixNano),
      attributes: apiAttributes(event.attributes),
    })),
    ended: true,
    resource: origin.resource,
    instrumentationScope: origin.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** The API types attributes without maps or bytes; the serializer writes both. */
function apiAttributes(attributes: Attributes): ApiAttributes {
  return attributes as unknown as ApiAttributes;
}
