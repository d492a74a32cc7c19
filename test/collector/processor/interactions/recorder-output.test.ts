/**
 * What the recorder thread hands back with the records it built: their JSON, in buffers freed once
 * the next stage has the records (unless it holds them), and, for a store that keeps records
 * compressed (PostgreSQL), the same JSON compressed on the thread.
 */
import { describe, expect, it } from 'vitest';
import type { InteractionRecord } from '../../../../src/model/records.ts';
import { inflateRecord } from '../../../../collector/ledger/core/record-codec.ts';
import { holdRecords } from '../../../../collector/processor/interactions/lazy-record.ts';
import { useRecordingHarness } from './helpers/recording-harness.ts';

/** Enough `pending_spans_memory` to hold every span of these tests. */
const MEMORY = 64 * 1024 * 1024;
const { harness, twoTicks } = useRecordingHarness();

describe.each(['inline', 'thread'] as const)('records built %s', (recorder) => {
  it('compresses the records for a store that keeps them so, on the recorder thread when there is one', async () => {
    const reference = await harness({ memory: MEMORY, recorder });
    const written: Array<{ json: string; deflated?: Uint8Array }> = [];
    const compressing = await harness({
      memory: MEMORY,
      recorder,
      wrap: (store) => ({
        ...store,
        compressesRecords: true,
        putEncodedInteractions: (rows) => {
          for (const { json, deflated } of rows)
            written.push({ json: typeof json === 'string' ? json : Buffer.from(json).toString('utf8'), deflated });
          return store.putEncodedInteractions(rows);
        },
      }),
    });
    for (const h of [reference, compressing]) await twoTicks(h);
    expect(compressing.handedOn).toStrictEqual(reference.handedOn);
    expect(written).toHaveLength(3);
    for (const { json, deflated } of written) {
      expect(JSON.parse(json)).toMatchObject({ agentId: expect.any(String) });
      // Built on the event loop, they are left to the store (which compresses them itself).
      if (recorder === 'inline') expect(deflated).toBeUndefined();
      else {
        expect(deflated!.byteLength).toBeLessThan(json.length / 2);
        expect(inflateRecord(deflated!)).toBe(json);
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
