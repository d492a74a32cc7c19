/**
 * Decode throughput of the OTLP decoders on a realistic body: 1000 spans from the OTel JS SDK,
 * ~15 attributes a span, ~3 KB of message content on 40% of them (test/fixtures/otlp/realistic-spans.ts),
 * serialized by the SDK's own OTLP serializers. Each decoder runs in its own process (so one
 * decoder's JIT state does not help or hurt another): 30 warm-up decodes, then 5 rounds of 40;
 * the median and best round are printed as spans/s. Also measures the alternative that was not
 * kept: protobufjs reflection (`Root.fromJSON` + `Type.decode`) mapped to the same SpanData.
 *
 *   node bench/measure-decode.ts            # all, one process each
 *   node bench/measure-decode.ts protobuf   # one of: protobuf, receive, reflection, json, json-parse-only
 *
 * `receive` is what the receiver does with a protobuf body: check it as the decoder would, decode
 * only the spans' heads, and cut it into one request per trace (the spans are decoded later).
 *
 * Not a vitest file: timings belong in a quiet process, not in the test run.
 */
import { execFileSync } from 'node:child_process';
import protobuf from 'protobufjs';
import type { AttributeValue, Attributes, SpanData } from '../collector/model/span.ts';
import { createKeyMatcher } from '../collector/model/otlp-protobuf/key-matcher.ts';
import { CLASSIFIED_ATTRIBUTES } from '../collector/processor/interactions/classify.ts';
import { decodeTraceRequest, receiveTraceRequest } from '../collector/receiver/otlp/index.ts';

const HEAD_ATTRIBUTES = createKeyMatcher(CLASSIFIED_ATTRIBUTES);
import { buildRealisticSpans, serializeJson, serializeProtobuf } from '../test/fixtures/otlp/realistic-spans.ts';

const SPANS = 1000;
const WARM_UP = 30;
const ROUNDS = 5;
const DECODES_A_ROUND = 40;

const decoders: Record<string, (protobufBody: Buffer, jsonBody: Buffer) => unknown> = {
  protobuf: (body) => decodeTraceRequest(body, 'protobuf'),
  receive: (body) => receiveTraceRequest(body, 'protobuf', HEAD_ATTRIBUTES),
  reflection: (body) => decodeWithReflection(body),
  json: (_, body) => decodeTraceRequest(body, 'json'),
  'json-parse-only': (_, body) => JSON.parse(body.toString('utf8')),
};

/** The alternative measured and not kept: a reflected schema decodes to a tree, then to SpanData. */
function decodeWithReflection(body: Uint8Array): SpanData[] {
  const request = reflectedRequest.decode(body) as unknown as Reflected;
  const spans: SpanData[] = [];
  for (const resourceSpans of request.resourceSpans) {
    const resource = toAttributes(resourceSpans.resource?.attributes ?? []);
    for (const scopeSpans of resourceSpans.scopeSpans) {
      const origin = {
        resource,
        scopeName: scopeSpans.scope?.name ?? '',
        scopeVersion: scopeSpans.scope?.version || undefined,
      };
      for (const s of scopeSpans.spans) {
        spans.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: s.parentSpanId.length > 0 ? hex(s.parentSpanId) : undefined,
          name: s.name,
          kind: s.kind,
          startTimeUnixNano: toNumber(s.startTimeUnixNano),
          endTimeUnixNano: toNumber(s.endTimeUnixNano),
          attributes: toAttributes(s.attributes),
          events: s.events.map((e) => ({
            name: e.name,
            timeUnixNano: toNumber(e.timeUnixNano),
            attributes: toAttributes(e.attributes),
          })),
          links: s.links.map((l) => ({
            traceId: hex(l.traceId),
            spanId: hex(l.spanId),
            attributes: toAttributes(l.attributes),
          })),
          status: { code: s.status?.code ?? 0, message: s.status?.message || undefined },
          flags: s.flags,
          origin,
        });
      }
    }
  }
  return spans;
}

/** What the reflected schema decodes to: protobufjs messages, their fields named as in the schema below. */
type Long = number | { toNumber(): number };
interface ReflectedValue {
  /** The name of the field set in the `value` oneof. */
  value?: string;
  stringValue: string;
  boolValue: boolean;
  intValue: Long;
  doubleValue: number;
  arrayValue: { values: ReflectedValue[] };
  kvlistValue: { values: ReflectedKeyValue[] };
  bytesValue: Uint8Array;
}
interface ReflectedKeyValue {
  key: string;
  value?: ReflectedValue | null;
}
interface ReflectedSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId: Uint8Array;
  name: string;
  kind: number;
  startTimeUnixNano: Long;
  endTimeUnixNano: Long;
  attributes: ReflectedKeyValue[];
  events: { name: string; timeUnixNano: Long; attributes: ReflectedKeyValue[] }[];
  links: { traceId: Uint8Array; spanId: Uint8Array; attributes: ReflectedKeyValue[] }[];
  status?: { code?: number; message?: string };
  flags: number;
}
interface Reflected {
  resourceSpans: {
    resource?: { attributes: ReflectedKeyValue[] };
    scopeSpans: { scope?: { name?: string; version?: string }; spans: ReflectedSpan[] }[];
  }[];
}
const field = (id: number, type: string, rule?: string) => (rule === undefined ? { id, type } : { id, type, rule });
const reflectedRequest = protobuf.Root.fromJSON({
  nested: {
    KeyValue: { fields: { key: field(1, 'string'), value: field(2, 'AnyValue') } },
    AnyValue: {
      oneofs: {
        value: {
          oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'],
        },
      },
      fields: {
        stringValue: field(1, 'string'),
        boolValue: field(2, 'bool'),
        intValue: field(3, 'int64'),
        doubleValue: field(4, 'double'),
        arrayValue: field(5, 'ArrayValue'),
        kvlistValue: field(6, 'KeyValueList'),
        bytesValue: field(7, 'bytes'),
      },
    },
    ArrayValue: { fields: { values: field(1, 'AnyValue', 'repeated') } },
    KeyValueList: { fields: { values: field(1, 'KeyValue', 'repeated') } },
    Resource: { fields: { attributes: field(1, 'KeyValue', 'repeated') } },
    Scope: { fields: { name: field(1, 'string'), version: field(2, 'string') } },
    Event: {
      fields: {
        timeUnixNano: field(1, 'fixed64'),
        name: field(2, 'string'),
        attributes: field(3, 'KeyValue', 'repeated'),
      },
    },
    Link: {
      fields: { traceId: field(1, 'bytes'), spanId: field(2, 'bytes'), attributes: field(4, 'KeyValue', 'repeated') },
    },
    Status: { fields: { message: field(2, 'string'), code: field(3, 'int32') } },
    Span: {
      fields: {
        traceId: field(1, 'bytes'),
        spanId: field(2, 'bytes'),
        parentSpanId: field(4, 'bytes'),
        name: field(5, 'string'),
        kind: field(6, 'int32'),
        startTimeUnixNano: field(7, 'fixed64'),
        endTimeUnixNano: field(8, 'fixed64'),
        attributes: field(9, 'KeyValue', 'repeated'),
        events: field(11, 'Event', 'repeated'),
        links: field(13, 'Link', 'repeated'),
        status: field(15, 'Status'),
        flags: field(16, 'fixed32'),
      },
    },
    ScopeSpans: { fields: { scope: field(1, 'Scope'), spans: field(2, 'Span', 'repeated') } },
    ResourceSpans: { fields: { resource: field(1, 'Resource'), scopeSpans: field(2, 'ScopeSpans', 'repeated') } },
    Request: { fields: { resourceSpans: field(1, 'ResourceSpans', 'repeated') } },
  },
}).lookupType('Request');

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function toNumber(value: Long): number {
  return typeof value === 'number' ? value : value.toNumber();
}

function toAttributes(list: ReflectedKeyValue[]): Attributes {
  const attributes: Attributes = {};
  for (const { key, value } of list) attributes[key] = value === undefined || value === null ? null : toValue(value);
  return attributes;
}

function toValue(value: ReflectedValue): AttributeValue {
  switch (value.value) {
    case 'stringValue':
      return value.stringValue;
    case 'boolValue':
      return value.boolValue;
    case 'intValue':
      return toNumber(value.intValue);
    case 'doubleValue':
      return value.doubleValue;
    case 'arrayValue':
      return value.arrayValue.values.map(toValue);
    case 'kvlistValue':
      return toAttributes(value.kvlistValue.values);
    case 'bytesValue':
      return new Uint8Array(value.bytesValue);
    default:
      return null;
  }
}

async function main(which: string | undefined): Promise<void> {
  if (which === undefined) {
    for (const name of Object.keys(decoders)) {
      process.stdout.write(execFileSync(process.execPath, [import.meta.filename, name], { encoding: 'utf8' }));
    }
  } else {
    const decode = decoders[which];
    if (decode === undefined)
      throw new Error(`measure-decode: unknown decoder ${which} (one of ${Object.keys(decoders).join(', ')})`);
    const recorded = await buildRealisticSpans(SPANS);
    const protobufBody = Buffer.from(serializeProtobuf(recorded));
    const jsonBody = Buffer.from(serializeJson(recorded));
    for (let i = 0; i < WARM_UP; i++) decode(protobufBody, jsonBody);
    const rates: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < DECODES_A_ROUND; i++) decode(protobufBody, jsonBody);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      rates.push((DECODES_A_ROUND * SPANS) / seconds);
    }
    rates.sort((a, b) => a - b);
    const median = rates[Math.floor(ROUNDS / 2)];
    const bytes = which.startsWith('json') ? jsonBody.length : protobufBody.length;
    console.log(
      `${which.padEnd(16)} median ${Math.round(median / 1000)}k spans/s, ` +
        `best ${Math.round(rates[ROUNDS - 1] / 1000)}k spans/s, ` +
        `${((SPANS / median) * 1000).toFixed(2)} ms per ${SPANS}-span body of ${(bytes / 1e6).toFixed(2)} MB`,
    );
  }
}

await main(process.argv[2]);
