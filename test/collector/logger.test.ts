/**
 * The collector's log on pino: `json` writes one object per line (time, level, msg, fields),
 * `console` the human line; the level hides what is below it; secrets never reach a line.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED, type LoggerOptions } from '../../collector/logger.ts';

function capture(options: LoggerOptions) {
  const lines: string[] = [];
  return { lines, logger: createLogger({ ...options, write: (line) => lines.push(line) }) };
}

describe('createLogger', () => {
  it('writes one JSON object per line with time, level, msg and the fields', () => {
    const { lines, logger } = capture({ encoding: 'json', level: 'debug' });
    logger.debug?.('checking', { traces: 3 });
    logger.info('OTLP/HTTP receiver listening on http://127.0.0.1:4318/v1/traces');
    logger.warn('a "quoted"\nmessage', { exporter: 'otlphttp/tempo', signal: 'logs' });
    logger.error('failed');
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map(({ time: _time, ...rest }) => rest)).toEqual([
      { level: 'debug', msg: 'checking', traces: 3 },
      { level: 'info', msg: 'OTLP/HTTP receiver listening on http://127.0.0.1:4318/v1/traces' },
      { level: 'warn', msg: 'a "quoted"\nmessage', exporter: 'otlphttp/tempo', signal: 'logs' },
      { level: 'error', msg: 'failed' },
    ]);
    for (const record of records) expect(new Date(String(record.time)).toISOString()).toBe(record.time);
  });

  it('writes the console line as before: time, level padded to five, message, then fields', () => {
    const { lines, logger } = capture({});
    logger.info('started');
    logger.error('stopped', { code: 1 });
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info {2}started$/);
    expect(lines[1]).toMatch(/^\S+ error stopped code=1$/);
  });

  it('hides the lines below its level', () => {
    const warn = capture({ level: 'warn', encoding: 'json' });
    warn.logger.debug?.('d');
    warn.logger.info('i');
    warn.logger.warn('w');
    warn.logger.error('e');
    expect(warn.lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['w', 'e']);
    const info = capture({});
    info.logger.debug?.('d');
    info.logger.info('i');
    expect(info.lines).toHaveLength(1);
    const quiet = capture({ quiet: true });
    quiet.logger.info('i');
    expect(quiet.lines).toEqual([]);
  });

  it('replaces every secret in messages and fields, and fields named like credentials', () => {
    for (const encoding of ['json', 'console'] as const) {
      const { lines, logger } = capture({ encoding, secrets: ['tok-9f8e7d', 'pg-pass-word', 'ab'] });
      logger.warn('refused Bearer tok-9f8e7d from postgres://evalon:pg-pass-word@db/evalon (table abc)', {
        header: 'Bearer tok-9f8e7d',
        nested: { list: ['pg-pass-word'] },
        authorization: 'Basic c2VjcmV0',
        headers: { authorization: 'anything' },
      });
      const line = lines.join('\n');
      for (const secret of ['tok-9f8e7d', 'pg-pass-word', 'c2VjcmV0', 'anything']) expect(line).not.toContain(secret);
      expect(line).toContain(`refused Bearer ${REDACTED} from postgres://evalon:${REDACTED}@db/evalon`);
      // Values too short to be a credential are left alone: they would blank out ordinary words.
      expect(line).toContain('(table abc)');
    }
  });
});
