/**
 * What the recorder thread hands back with the records it built: their JSON, in buffers freed once
 * the next stage has the records (unless it holds them), and, for a store that keeps records
 * compressed (PostgreSQL with DEFLATE, SQLite with LZ4), the same JSON compressed on the thread.
 */
import { describe, expect, it } from 'vitest';
import type { InteractionRecord } from '../../../../src/model/records.ts';
import { inflateRecord, uncompressRecordLz4 } from '../../../../collector/ledger/core/record-codec.ts';
import { holdRecords } from '../../../../collector/processor/interactions/lazy-record.ts';
import { useRecordingHarness } from './helpers/recording-harness.ts';

/** Enough `pending_spans_memory` to hold every span of these tests. */
const MEMORY = 64 * 1024 * 1024;
const { harness, twoTicks } = useRecordingHarness();

const decompress = { deflate: inflateRecord, lz4: uncompressRecordLz4 } as const;

describe.each([
  ['inline', 'deflate'],
  ['thread', 'deflate'],
  ['inline', 'lz4'],
  ['thread', 'lz4'],
] as const)('records built %s, a store that keeps them compressed with %s', (recorder, compression) => {
  it('compresses the records for a store that keeps them so, on the recorder thread when there is one', async () => {
    const reference = await harness({ memory: MEMORY, recorder });
    const written: Array<{ json: string; compressed?: Uint8Array }> = [];
    const compressing = await harness({
      memory: MEMORY,
      recorder,
      wrap: (store) => ({
        ...store,
        recordCompression: compression,
        putEncodedInteractions: (rows) => {
          for (const { json, compressed } of rows) {
            const text = typeof json === 'string' ? json : Buffer.from(json).toString('utf8');
            // Copied: a buffer the rows view may move to the ledger's writer while it is written.
            written.push({ json: text, compressed: compressed && Uint8Array.from(compressed) });
          }
          return store.putEncodedInteractions(rows);
        },
      }),
    });
    for (const h of [reference, compressing]) await twoTicks(h);
    expect(compressing.handedOn).toStrictEqual(reference.handedOn);
    expect(written).toHaveLength(3);
    for (const { json, compressed } of written) {
      expect(JSON.parse(json)).toMatchObject({ agentId: expect.any(String) });
      // Built on the event loop, they are left to the store (which compresses them itself).
      if (recorder === 'inline') expect(compressed).toBeUndefined();
      else {
        expect(compressed!.byteLength).toBeLessThan(json.length / 2);
        expect(decompress[compression](compressed!)).toBe(json);
      }
    }
  });
});

describe('the records’ JSON from the recorder thread', () => {
  it('is freed once the next stage has the records, unless it holds them, and read after that fails', async () => {
    let during: string | undefined;
    const kept: InteractionRecord[] = [];
    let hold: ReturnType<typeof holdRecords> | undefined;
    const h = await harness({
      memory: MEMORY,
      recorder: 'thread',
      consume: (records) => {
        if (hold) return;
        // Read while being handed on: always there.
        during = records[0].finalResponseText;
        hold = holdRecords(records);
        kept.push(...records);
      },
    });
    const reference = await harness({ memory: MEMORY });
    for (const run of [h, reference]) await twoTicks(run);
    const [first, second] = h.handedOn;
    expect([first.length, second.length]).toEqual([2, 1]);
    expect(during).toBe(reference.handedOn[0][0].finalResponseText);
    // The first batch is held: readable after the hand-off, as the inline recorder's records (its
    // second record is left unread, for what follows).
    expect(first[0]).toStrictEqual(reference.handedOn[0][0]);
    // The second is not: its buffer was freed, and reading its content names the interaction.
    expect(second[0].agentId).toBe(reference.handedOn[1][0].agentId);
    expect(() => second[0].transcript).toThrow(
      new RegExp(`content of interaction ${second[0].interactionId} was read after its batch was released`),
    );
    // Released, the held batch goes the same way; what was read before stays.
    hold!.release();
    expect(kept[0].input).toStrictEqual(reference.handedOn[0][0].input);
    expect(() => kept[1].transcript).toThrow(/was read after its batch was released/);
  });
});
