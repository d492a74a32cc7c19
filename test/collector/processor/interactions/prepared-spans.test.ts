/**
 * What the assembler keeps of a span is the same whether the span came as bytes (the receiver's
 * heads carry the ids as numbers, written out as hex only when read) or decoded (ids as hex
 * strings): its ids' halves, what kind of parent it has, and its invocation.
 */
import { describe, expect, it } from 'vitest';
import { createKeyMatcher } from '../../../../collector/model/otlp-protobuf/key-matcher.ts';
import { CLASSIFIED_ATTRIBUTES, classifyInvocation } from '../../../../collector/processor/interactions/classify.ts';
import {
  PARENT_LOCAL,
  PARENT_NONE,
  PARENT_REMOTE,
  invocationOf,
  parentKind,
  prepareSpans,
} from '../../../../collector/processor/interactions/prepared-spans.ts';
import { receiveTraceRequest } from '../../../../collector/receiver/otlp/index.ts';
import { encodeOtlpProtobuf } from '../../../fixtures/otlp/encode-otlp-protobuf.ts';
import { CHILD_SPAN_ID, OTHER_SPAN_ID, ROOT_SPAN_ID, sampleSpan } from '../../../fixtures/otlp/sample-request.ts';

const ROOT = sampleSpan({
  attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } }],
  flags: 0x100,
});
const LOCAL_CHILD = sampleSpan({
  spanId: CHILD_SPAN_ID,
  parentSpanId: ROOT_SPAN_ID,
  name: 'chat',
  attributes: [],
  flags: 0x101,
});
const REMOTE_CHILD = sampleSpan({
  spanId: OTHER_SPAN_ID,
  parentSpanId: 'f0e1d2c3b4a59687',
  attributes: [],
  flags: 0x301,
});
const UNFLAGGED_CHILD = sampleSpan({
  spanId: 'ffffffff00000001',
  parentSpanId: ROOT_SPAN_ID,
  attributes: [],
  flags: undefined,
});

function received() {
  const body = encodeOtlpProtobuf({
    resourceSpans: [
      { scopeSpans: [{ scope: { name: 'scope' }, spans: [ROOT, LOCAL_CHILD, REMOTE_CHILD, UNFLAGGED_CHILD] }] },
    ],
  });
  return receiveTraceRequest(body, 'protobuf', createKeyMatcher(CLASSIFIED_ATTRIBUTES)).batch;
}

describe('prepareSpans', () => {
  it('keeps the same numbers for spans received as bytes and for the same spans decoded', () => {
    const batch = received();
    expect(batch.heads[0]!.spanIdHigh).toBeTypeOf('number');
    const fromBytes = prepareSpans(batch.heads, classifyInvocation);
    const fromDecoded = prepareSpans(batch.spans(), classifyInvocation);
    expect(fromBytes.traceIds).toEqual(fromDecoded.traceIds);
    expect([...fromBytes.numbers]).toEqual([...fromDecoded.numbers]);
    expect([0, 1, 2, 3].map((i) => parentKind(fromBytes, i))).toEqual([
      PARENT_NONE,
      PARENT_LOCAL,
      PARENT_REMOTE,
      PARENT_LOCAL,
    ]);
    expect(invocationOf(fromBytes, 0)?.dialect).toBe(invocationOf(fromDecoded, 0)?.dialect);
    expect(invocationOf(fromBytes, 1)).toBeUndefined();
  });

  it('reads ids whose high bit is set as the same halves either way', () => {
    const batch = received();
    const unflagged = batch.heads[3]!;
    expect(unflagged.spanId).toBe('ffffffff00000001');
    expect([unflagged.spanIdHigh, unflagged.spanIdLow]).toEqual([-1, 1]);
    expect(unflagged.parentSpanId).toBe(ROOT_SPAN_ID);
    expect(batch.heads[0]!.parentSpanId).toBeUndefined();
  });
});
