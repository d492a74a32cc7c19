/**
 * A few attribute keys, recognised on the wire by their bytes: the receiver decodes the attributes
 * that decide interactions (`SpanBatch.heads`) while it checks a request, and makes no string for
 * the dozens of other keys a span carries. Keys compare as their UTF-8 bytes.
 */
import { truncated, type WireReader } from './wire.ts';

export interface KeyMatcher {
  readonly keys: ReadonlySet<string>;
  /** By byte length: the keys of that length, as bytes and as strings. */
  readonly byLength: ReadonlyArray<ReadonlyArray<{ bytes: Uint8Array; key: string }> | undefined>;
}

export function createKeyMatcher(keys: ReadonlySet<string>): KeyMatcher {
  const byLength: Array<Array<{ bytes: Uint8Array; key: string }> | undefined> = [];
  for (const key of keys) {
    const bytes = Buffer.from(key, 'utf8');
    const sameLength = byLength[bytes.length] ?? [];
    sameLength.push({ bytes, key });
    byLength[bytes.length] = sameLength;
  }
  return { keys, byLength };
}

/**
 * Reads a KeyValue.key with the checks `readKeyString` makes: the key when it is one of
 * `matcher`'s, else undefined.
 */
export function matchKeyString(r: WireReader, matcher: KeyMatcher): string | undefined {
  const length = r.uint32();
  const start = r.pos;
  const end = start + length;
  if (end > r.len) throw truncated(r);
  r.pos = end;
  const candidates = matcher.byLength[length];
  if (candidates === undefined) return undefined;
  const buf = r.buf;
  for (const { bytes, key } of candidates) {
    let i = 0;
    while (i < length && bytes[i] === buf[start + i]) i++;
    if (i === length) return key;
  }
  return undefined;
}
