import { describe, expect, it } from 'vitest';
import { durationMs, formatDuration, parseDuration } from '../../../src/config/duration.ts';

describe('the duration grammar', () => {
  it('reads milliseconds given as a plain number', () => {
    expect(parseDuration('250')).toBe(250);
    expect(parseDuration(' 1500.5 ')).toBe(1500.5);
  });

  it('reads every unit and compounds of them', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('2s')).toBe(2_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('2w')).toBe(1_209_600_000);
    expect(parseDuration('1m500ms')).toBe(60_500);
  });

  it('refuses what is not a duration', () => {
    for (const text of ['', ' ', '-5s', '5 s', '5sec', '1e3', '5s5s', 'lots', '5x', 's'])
      expect(parseDuration(text), text).toBeUndefined();
  });

  it('takes numbers and texts alike and refuses negatives and non-finite numbers', () => {
    expect(durationMs(30)).toBe(30);
    expect(durationMs('30s')).toBe(30_000);
    expect(durationMs(-1)).toBeUndefined();
    expect(durationMs(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(durationMs(true)).toBeUndefined();
  });

  it('formats milliseconds back into the grammar', () => {
    expect(formatDuration(250)).toBe('250ms');
    expect(formatDuration(30_000)).toBe('30s');
    expect(formatDuration(5_400_000)).toBe('1h30m');
    expect(formatDuration(604_800_000)).toBe('1w');
    expect(parseDuration(formatDuration(93_784_000))).toBe(93_784_000);
  });
});
