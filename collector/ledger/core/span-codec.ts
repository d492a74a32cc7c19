/**
 * How every ledger store encodes spans (pending and late): the V8 serializer (`node:v8`). It keeps
 * every attribute type as it is (Uint8Array included, where JSON would need a replacer and a
 * reviver), writes a span's shared `origin` once per row, and measured faster than JSON both ways
 * (docs/benchmarks.md, "Ledger store choice"). Node documents the format as backward-compatible,
 * so data written by an older Node reads on a newer one. Each row names its codec, so a later
 * codec can be added without rewriting old rows.
 *
 * Decoded byte arrays are views into the row's buffer (V8 does not copy them): a span holding one
 * keeps its row's bytes alive until the span itself is dropped.
 */
import { deserialize, serialize } from 'node:v8';
import type { SpanData } from '../../model/span.ts';
import { LedgerStoreError } from '../errors.ts';

export const CODEC_V8 = 1;

export function encodeSpans(spans: SpanData[]): Uint8Array {
  try {
    return serialize(spans);
  } catch (error) {
    throw new LedgerStoreError(
      `ledger: cannot encode spans: ${(error as Error).message} (span values must be OTLP attribute values)`,
      { cause: error },
    );
  }
}

export function decodeSpans(codec: number, bytes: Uint8Array, where: string): SpanData[] {
  if (codec !== CODEC_V8) {
    throw new LedgerStoreError(`ledger ${where}: unknown span codec ${codec} (written by a newer Evalon?)`);
  }
  return deserialize(bytes) as SpanData[];
}
