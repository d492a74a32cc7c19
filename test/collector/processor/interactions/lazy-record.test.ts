/**
 * A record handed on by the recorder: its content parsed only when read, and otherwise a plain
 * record to whoever reads it (spread, JSON, structured clone, assignment, equality).
 */
import { describe, expect, it } from 'vitest';
import {
  headOf,
  holdContent,
  holdRecords,
  lazyRecord,
} from '../../../../collector/processor/interactions/lazy-record.ts';
import { makeRecord } from '../../../helpers/ledger-fixtures.ts';

const record = makeRecord({ endTime: '2025-06-01T10:00:00.000Z', failed: true, failureSummary: 'TimeoutError' });

describe('a lazy record', () => {
  for (const [form, json] of [
    ['text', JSON.stringify(record)],
    ['UTF-8 bytes', new Uint8Array(Buffer.from(JSON.stringify(record)))],
  ] as const) {
    it(`equals the record it was built from, its JSON given as ${form}`, () => {
      const lazy = lazyRecord(headOf(record), json);
      expect(lazy).toStrictEqual(record);
      expect(JSON.parse(JSON.stringify(lazy))).toStrictEqual(record);
      expect({ ...lazy }).toStrictEqual(record);
      expect(structuredClone(lazy)).toStrictEqual(record);
      expect(Object.keys(lazy).sort()).toEqual(Object.keys(record).sort());
    });
  }

  it('reads its small fields without parsing, and parses once for its content', () => {
    let parses = 0;
    const json = JSON.stringify(record);
    const original = JSON.parse;
    JSON.parse = ((text: string) => {
      parses++;
      return original(text);
    }) as typeof JSON.parse;
    try {
      const lazy = lazyRecord(headOf(record), json);
      expect([lazy.interactionId, lazy.agentId, lazy.failed, lazy.attributes]).toEqual([
        record.interactionId,
        record.agentId,
        true,
        record.attributes,
      ]);
      expect(parses).toBe(0);
      expect(lazy.transcript).toStrictEqual(record.transcript);
      expect(lazy.finalResponseText).toBe(record.finalResponseText);
      expect(lazy.input).toStrictEqual(record.input);
      expect(parses).toBe(1);
    } finally {
      JSON.parse = original;
    }
  });

  it('takes an assigned content field as a plain value', () => {
    const lazy = lazyRecord(headOf(record), JSON.stringify(record));
    lazy.finalResponseText = 'changed';
    expect(lazy.finalResponseText).toBe('changed');
    expect(JSON.parse(JSON.stringify(lazy)).finalResponseText).toBe('changed');
    expect(lazy.toolCalls).toStrictEqual(record.toolCalls);
  });
});

describe('holding records’ JSON', () => {
  const bytesOf = () => new Uint8Array(Buffer.from(JSON.stringify(record)));

  it('frees a buffer at the last release of its holds, each hold counted once', () => {
    const lazy = lazyRecord(headOf(record), bytesOf());
    const first = holdRecords([lazy, lazy]);
    const second = holdRecords([lazy]);
    first.release();
    first.release();
    expect(lazy.finalResponseText).toBe(record.finalResponseText);
    const other = lazyRecord(headOf(record), bytesOf());
    const third = holdRecords([other]);
    third.release();
    expect(() => other.transcript).toThrow(
      `interactions: the content of interaction ${record.interactionId} was read after its batch was released`,
    );
    // Read before the last release: the parsed content stays.
    second.release();
    expect(lazy).toStrictEqual(record);
  });

  it('leaves text, and buffers never held, to the garbage collector', () => {
    const bytes = bytesOf();
    holdContent([JSON.stringify(record), undefined]).release();
    const lazy = lazyRecord(headOf(record), bytes);
    expect(lazy).toStrictEqual(record);
    expect(bytes.buffer.detached).toBe(false);
  });
});
