/**
 * Decodes an OTLP/JSON ExportTraceServiceRequest into `SpanData`. `JSON.parse` does the parsing;
 * this maps the parsed tree with the OTLP deviations from proto3 JSON (see json-fields.ts) and
 * ignores unknown keys. A wrong shape inside a span refuses that span (partial success); a wrong
 * shape around the spans (a resource, a scope, the arrays holding them) fails the body (400).
 * On the body described in decode-protobuf.ts: ~140k spans/s, of which JSON.parse alone is ~190k
 * (bench/measure-decode.ts); the parse, not this mapping, is the cost.
 */
import type { Attributes, SpanData, SpanEvent, SpanLink, SpanOrigin } from '../../model/span.ts';
import { readAttributes } from './decode-json-values.ts';
import { OtlpDecodeError } from './errors.ts';
import {
  JsonShapeError,
  describe,
  isObject,
  readArray,
  readEnum,
  readHexId,
  readInt64,
  readObject,
  readString,
  readUint32,
  type JsonObject,
} from './json-fields.ts';
import { spanPath, type SpanRejections } from '../../model/span-rejections.ts';

const SPAN_KIND_NAMES: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODE_NAMES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

export function decodeJsonRequest(body: Uint8Array, rejections: SpanRejections): SpanData[] {
  // The OTLP specification answers an empty request with success; an empty JSON body is the same request.
  if (body.length === 0) return [];
  const root = parse(body);
  if (!isObject(root)) {
    throw new OtlpDecodeError(`json: the body must be an ExportTraceServiceRequest object (got ${describe(root)})`);
  }
  if (root.resourceSpans === undefined && root.resource_spans !== undefined) {
    // Unknown keys are ignored by the OTLP specification, which would silently drop every span here.
    rejections.warn('resource_spans was ignored: OTLP/JSON keys are lowerCamelCase (resourceSpans)');
  }
  const spans: SpanData[] = [];
  try {
    const resourceSpans = readArray(root.resourceSpans, 'resourceSpans');
    for (let i = 0; i < resourceSpans.length; i++) decodeResourceSpans(resourceSpans[i], i, spans, rejections);
  } catch (error) {
    if (error instanceof JsonShapeError)
      throw new OtlpDecodeError(`json: ${error.message}`, { field: error.path, cause: error });
    throw error;
  }
  return spans;
}

function parse(body: Uint8Array): unknown {
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let text = buffer.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (error) {
    const what = error instanceof Error ? error.message : String(error);
    throw new OtlpDecodeError(`json: the body is not valid JSON (${what})`, { cause: error });
  }
}

function decodeResourceSpans(value: unknown, i: number, out: SpanData[], rejections: SpanRejections): void {
  const where = `resourceSpans[${i}]`;
  if (!isObject(value)) throw new JsonShapeError(where, `must be an object (got ${describe(value)})`);
  const resourceObject = readObject(value.resource, `${where}.resource`);
  const resource: Attributes = {};
  if (resourceObject !== undefined) readAttributes(resourceObject.attributes, `${where}.resource.attributes`, resource);
  const scopeSpans = readArray(value.scopeSpans, `${where}.scopeSpans`);
  for (let j = 0; j < scopeSpans.length; j++) {
    const scopeWhere = `${where}.scopeSpans[${j}]`;
    const scopeSpan = scopeSpans[j];
    if (!isObject(scopeSpan)) throw new JsonShapeError(scopeWhere, `must be an object (got ${describe(scopeSpan)})`);
    const scope = readObject(scopeSpan.scope, `${scopeWhere}.scope`);
    const version = readString(scope?.version, `${scopeWhere}.scope.version`);
    const origin: SpanOrigin = {
      resource,
      scopeName: readString(scope?.name, `${scopeWhere}.scope.name`),
      scopeVersion: version === '' ? undefined : version,
    };
    const spans = readArray(scopeSpan.spans, `${scopeWhere}.spans`);
    for (let k = 0; k < spans.length; k++) {
      try {
        out.push(decodeSpan(spans[k], origin));
      } catch (error) {
        if (!(error instanceof JsonShapeError)) throw error;
        rejections.add(spanPath(i, j, k), error.message);
      }
    }
  }
}

/** One span; a JsonShapeError names the offending field relative to the span. */
function decodeSpan(value: unknown, origin: SpanOrigin): SpanData {
  if (!isObject(value)) throw new JsonShapeError('', `must be a span object (got ${describe(value)})`);
  const traceId = readHexId(value.traceId, 'traceId', 32);
  if (traceId === undefined) throw new JsonShapeError('traceId', 'is missing');
  const spanId = readHexId(value.spanId, 'spanId', 16);
  if (spanId === undefined) throw new JsonShapeError('spanId', 'is missing');
  const status = readObject(value.status, 'status');
  const statusMessage = readString(status?.message, 'status.message');
  return {
    traceId,
    spanId,
    parentSpanId: readHexId(value.parentSpanId, 'parentSpanId', 16),
    name: readString(value.name, 'name'),
    kind: readEnum(value.kind, 'kind', SPAN_KIND_NAMES),
    startTimeUnixNano: readInt64(value.startTimeUnixNano, 'startTimeUnixNano'),
    endTimeUnixNano: readInt64(value.endTimeUnixNano, 'endTimeUnixNano'),
    attributes: readAttributes(value.attributes, 'attributes', {}),
    events: readEvents(value.events),
    links: readLinks(value.links),
    status: {
      code: readEnum(status?.code, 'status.code', STATUS_CODE_NAMES),
      message: statusMessage === '' ? undefined : statusMessage,
    },
    flags: readUint32(value.flags, 'flags'),
    origin,
  };
}

function readEvents(value: unknown): SpanEvent[] {
  const list = readArray(value, 'events');
  const events: SpanEvent[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const event = eventOrLink(list[i], `events[${i}]`);
    events[i] = {
      name: readString(event.name, `events[${i}].name`),
      timeUnixNano: readInt64(event.timeUnixNano, `events[${i}].timeUnixNano`),
      attributes: readAttributes(event.attributes, `events[${i}].attributes`, {}),
    };
  }
  return events;
}

function readLinks(value: unknown): SpanLink[] {
  const list = readArray(value, 'links');
  const links: SpanLink[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const where = `links[${i}]`;
    const link = eventOrLink(list[i], where);
    const traceId = readHexId(link.traceId, `${where}.traceId`, 32);
    if (traceId === undefined) throw new JsonShapeError(`${where}.traceId`, 'is missing');
    const spanId = readHexId(link.spanId, `${where}.spanId`, 16);
    if (spanId === undefined) throw new JsonShapeError(`${where}.spanId`, 'is missing');
    links[i] = { traceId, spanId, attributes: readAttributes(link.attributes, `${where}.attributes`, {}) };
  }
  return links;
}

function eventOrLink(value: unknown, where: string): JsonObject {
  if (!isObject(value)) throw new JsonShapeError(where, `must be an object (got ${describe(value)})`);
  return value;
}
