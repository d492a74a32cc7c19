import { describe, expect, it } from 'vitest';
import { createInteractionsFanOut } from '../../../../collector/processor/interactions/fan-out.ts';
import type { InteractionRecord } from '../../../../src/model/records.ts';

describe('the interactions fan-out', () => {
  it('hands each batch to every consumer in order, each after the previous one finished', async () => {
    const seen: string[] = [];
    const fanOut = createInteractionsFanOut([
      {
        async consumeInteractions(records) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          seen.push(`exporters:${records.length}`);
        },
      },
      { consumeInteractions: async (records) => void seen.push(`evaluation:${records.length}`) },
    ]);
    await fanOut.consumeInteractions([{} as InteractionRecord, {} as InteractionRecord]);
    expect(seen).toEqual(['exporters:2', 'evaluation:2']);
  });

  it('stops at a consumer that fails, so the batch is not half handed on silently', async () => {
    const seen: string[] = [];
    const fanOut = createInteractionsFanOut([
      {
        consumeInteractions: async () => {
          throw new Error('exporters: full');
        },
      },
      { consumeInteractions: async () => void seen.push('evaluation') },
    ]);
    await expect(fanOut.consumeInteractions([])).rejects.toThrow('exporters: full');
    expect(seen).toEqual([]);
  });
});
