import { describe, expect, it } from 'vitest';
import { duration, listenEndpoint, ratio, size, urlEndpoint } from '../../../collector/config/values.ts';

function messageOf(result: { success: boolean; error?: { issues: Array<{ message: string }> } }): string | undefined {
  return result.error?.issues[0]?.message;
}

describe('configuration values', () => {
  it('reads durations in ms, s, m, h, d, w and combinations, or plain milliseconds', () => {
    const schema = duration();
    const cases: Array<[unknown, number]> = [
      ['2s', 2_000],
      ['500ms', 500],
      ['5m', 300_000],
      ['1h', 3_600_000],
      ['1m30s', 90_000],
      ['1.5s', 1_500],
      ['5d', 432_000_000],
      ['1w', 604_800_000],
      [250, 250],
      ['250', 250],
      [0, 0],
    ];
    for (const [input, ms] of cases) expect(schema.parse(input), String(input)).toBe(ms);
    for (const input of ['soon', '2 seconds', '-1s', -5, '', true, '5y', '1m1m']) {
      expect(messageOf(schema.safeParse(input)), String(input)).toMatch(
        /^must be a duration such as 500ms, 30s, 5m, 1h30m or 7d, or a number of milliseconds \(got /,
      );
    }
    expect(messageOf(duration({ positive: true }).safeParse('0s'))).toBe('must be longer than 0 (got string "0s")');
  });

  it('reads sizes in bytes, decimal and binary units, case-insensitively', () => {
    const schema = size();
    const cases: Array<[unknown, number]> = [
      ['64MiB', 67_108_864],
      ['1MB', 1_000_000],
      ['512KiB', 524_288],
      ['2GiB', 2_147_483_648],
      ['1kb', 1_000],
      [4096, 4096],
      ['100', 100],
      ['1.5MiB', 1_572_864],
      ['2TiB', 2_199_023_255_552],
      ['1TB', 1_000_000_000_000],
    ];
    for (const [input, bytes] of cases) expect(schema.parse(input), String(input)).toBe(bytes);
    for (const input of ['64 megabytes', 0, '-1MB', 'MiB', null]) {
      expect(messageOf(schema.safeParse(input)), String(input)).toMatch(/^must be a size such as 64MiB/);
    }
    // Where 0 means "none" (processors::interactions::pending_spans_memory).
    const orZero = size({ allowZero: true });
    expect(orZero.parse(0)).toBe(0);
    expect(orZero.parse('0MiB')).toBe(0);
    expect(messageOf(orZero.safeParse('-1MB'))).toMatch(/^must be a size such as 64MiB/);
  });

  it('reads listening endpoints as host and port, IPv6 in brackets, and an empty host as every interface', () => {
    const schema = listenEndpoint();
    expect(schema.parse('127.0.0.1:4318')).toEqual({ host: '127.0.0.1', port: 4318 });
    expect(schema.parse('localhost:0')).toEqual({ host: 'localhost', port: 0 });
    expect(schema.parse('[::1]:4319')).toEqual({ host: '::1', port: 4319 });
    expect(schema.parse(':4318')).toEqual({ host: '0.0.0.0', port: 4318 });
    expect(messageOf(schema.safeParse('127.0.0.1:65536'))).toBe('has port 65536, which is out of range (0-65535)');
    expect(messageOf(schema.safeParse('127.0.0.1'))).toMatch(/^must be host:port/);
    expect(messageOf(schema.safeParse('::1:4318'))).toMatch(/^must be host:port/);
    expect(messageOf(schema.safeParse('http://127.0.0.1:4318'))).toBe(
      'must be host:port without a scheme (got string "http://127.0.0.1:4318")',
    );
    expect(listenEndpoint({ allowScheme: true }).parse('http://0.0.0.0:9464/')).toEqual({
      host: '0.0.0.0',
      port: 9464,
    });
  });

  it('reads exporter URLs, taking a bare host:port as http://', () => {
    const schema = urlEndpoint();
    expect(schema.parse('http://127.0.0.1:4328')).toBe('http://127.0.0.1:4328');
    expect(schema.parse('https://otlp.example.com/otlp/')).toBe('https://otlp.example.com/otlp');
    expect(schema.parse('collector:4318')).toBe('http://collector:4318');
    expect(messageOf(schema.safeParse('http://127.0.0.1:99999'))).toMatch(/^must be a URL/);
    expect(messageOf(schema.safeParse('grpc://collector:4317'))).toMatch(/^must be an http:\/\/ or https:\/\/ URL/);
  });

  it('reads a sampling ratio from 0 to 1', () => {
    const schema = ratio();
    expect(schema.parse(0)).toBe(0);
    expect(schema.parse(0.25)).toBe(0.25);
    expect(schema.parse(1)).toBe(1);
    expect(messageOf(schema.safeParse(1.01))).toBe('must be between 0 and 1 (got 1.01)');
    expect(messageOf(schema.safeParse(-0.1))).toBe('must be between 0 and 1 (got -0.1)');
    expect(messageOf(schema.safeParse('0.5'))).toBe('must be a number between 0 and 1 (got string "0.5")');
  });
});
