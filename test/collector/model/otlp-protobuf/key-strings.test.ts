/**
 * Attribute keys are read through a small cache of the strings made for the same bytes before: a
 * key must always come back as exactly its own text, also when two keys share the cache's slot.
 */
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { createWireReader, readKeyString } from '../../../../collector/model/otlp-protobuf/wire.ts';

function readAll(keys: string[]): string[] {
  const writer = protobuf.Writer.create();
  for (const key of keys) writer.string(key);
  const r = createWireReader(writer.finish());
  const read: string[] = [];
  while (r.pos < r.len) read.push(readKeyString(r));
  return read;
}

describe('attribute keys read from the wire', () => {
  it('come back as their own text when keys alternate that differ only where the slot is not chosen', () => {
    // Same length, same first and last bytes, same bytes at a half and a quarter from the end.
    const keys = ['abcdefghijklmn', 'abXdefghijklmn', 'aYcdefghijklmn', 'abcdeZghijklmn'];
    const sequence = Array.from({ length: 200 }, (_, i) => keys[(i * 7) % keys.length]);
    expect(readAll(sequence)).toEqual(sequence);
  });

  it('come back whole for empty, one-byte, multi-byte and longer-than-cached keys', () => {
    const keys = ['', 'a', 'é', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', '名前.属性', 'k'.repeat(80)];
    const sequence = [...keys, ...keys.toReversed(), ...keys];
    expect(readAll(sequence)).toEqual(sequence);
  });
});
