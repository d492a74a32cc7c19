import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSampled, samplingRandomness } from '../../../../collector/processor/evaluation/sampling.ts';

const traceIds = Array.from({ length: 20_000 }, () => randomBytes(16).toString('hex'));

describe('deterministic sampling from the trace id', () => {
  it('takes the randomness from the lower 56 bits of the trace id', () => {
    expect(samplingRandomness('0000000000000000ff' + '00000000000001')).toBe(1n);
    expect(samplingRandomness('ffffffffffffffffff' + 'ffffffffffffff')).toBe(2n ** 56n - 1n);
  });

  it('samples iff the randomness is below ratio × 2^56', () => {
    expect(samplingRandomness(`${'0'.repeat(18)}7fffffffffffff`)).toBe(2n ** 55n - 1n);
    expect(isSampled(`${'0'.repeat(18)}7fffffffffffff`, 0.5)).toBe(true);
    expect(isSampled(`${'0'.repeat(18)}80000000000000`, 0.5)).toBe(false);
  });

  it('decides the same way every time, for every ratio', () => {
    for (const id of traceIds.slice(0, 200)) {
      for (const ratio of [0.01, 0.1, 0.5, 0.9]) expect(isSampled(id, ratio)).toBe(isSampled(id, ratio));
    }
  });

  it('always samples at 1.0 and never at 0.0', () => {
    expect(traceIds.every((id) => isSampled(id, 1))).toBe(true);
    expect(traceIds.some((id) => isSampled(id, 0))).toBe(false);
  });

  it('evaluates about the ratio’s share of interactions', () => {
    for (const ratio of [0.1, 0.25, 0.5]) {
      const share = traceIds.filter((id) => isSampled(id, ratio)).length / traceIds.length;
      expect(Math.abs(share - ratio)).toBeLessThan(0.02);
    }
  });

  it('is consistent: sampled at a ratio means sampled at every higher ratio', () => {
    for (const id of traceIds.slice(0, 2000)) {
      if (isSampled(id, 0.1)) expect(isSampled(id, 0.3)).toBe(true);
      if (!isSampled(id, 0.3)) expect(isSampled(id, 0.1)).toBe(false);
    }
  });

  it('still decides deterministically for a trace id that is not 32 hex digits', () => {
    expect(isSampled('not-a-trace-id', 0.5)).toBe(isSampled('not-a-trace-id', 0.5));
  });
});
