import { describe, expect, it } from 'vitest';
import { nanosToIso } from '../../../collector/model/span.ts';

describe('nanosToIso', () => {
  it('writes what Date#toISOString writes of the same millisecond, across months, leap years, centuries', () => {
    const ms = [
      0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 1_709_164_800_000, 4_107_542_400_000,
      253_402_300_799_999, 1_764_633_600_123,
    ];
    let state = 12_345;
    for (let i = 0; i < 5_000; i++) {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      ms.push(Math.floor((state / 2 ** 31) * 253_402_300_799_999));
    }
    for (const value of ms) {
      const nanos = value * 1e6;
      expect(nanosToIso(nanos)).toBe(new Date(Math.floor((nanos + 512) / 1e6)).toISOString());
    }
  });

  it('rounds to the millisecond a double of Unix nanoseconds means, and leaves far dates to Date', () => {
    // Truncated to the millisecond, after half a double's step (~256 ns at these values) up.
    expect(nanosToIso(1_764_633_600_123 * 1e6 + 999_000)).toBe('2025-12-02T00:00:00.123Z');
    expect(nanosToIso(1_764_633_600_124 * 1e6 - 200)).toBe('2025-12-02T00:00:00.124Z');
    expect(nanosToIso(-1e6)).toBe(new Date(-1).toISOString());
    expect(nanosToIso(253_402_300_800_000 * 1e6)).toBe(new Date(253_402_300_800_000).toISOString());
  });
});
