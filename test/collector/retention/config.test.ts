/** `processors.evaluation.ledger.retention` through the real loader: the policy, and its problems by YAML path. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../collector/config/index.ts';
import { MINIMAL_PIPELINE, writeConfigFiles } from '../../helpers/config-files.ts';

const DAY = 86_400_000;

function load(retention: string, store = 'sqlite: { path: ./ledger.db }') {
  const [file] = writeConfigFiles({
    'otel-config.yaml': `processors:
  interactions:
  evaluation:
    ledger:
      ${store}
      retention: ${retention}
${MINIMAL_PIPELINE}`,
  });
  return loadConfig([file], { env: {} }).config.processors.evaluation.ledger;
}

function problems(retention: string): string[] {
  try {
    load(retention);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.path}: ${p.message}`);
    throw error;
  }
  throw new Error('loaded without problems');
}

describe('ledger retention configuration', () => {
  it('reads the policy in milliseconds and bytes, beside either store', () => {
    expect(load('{ max_age: 30d, max_size: 50GiB, keep_evaluations: 365d }').retention).toEqual({
      maxAgeMs: 30 * DAY,
      maxSizeBytes: 50 * 1024 ** 3,
      keepEvaluationsMs: 365 * DAY,
    });
    expect(load('{ max_size: 1TiB }', 'postgres: { url: "postgres://evalon@db/evalon" }')).toEqual({
      kind: 'postgres',
      url: 'postgres://evalon@db/evalon',
      retention: { maxSizeBytes: 1024 ** 4 },
    });
  });

  it('prunes nothing when the section is empty or absent', () => {
    expect(load('{}').retention).toBeUndefined();
    expect(load('').retention).toBeUndefined();
  });

  it('reports a bad size, a negative age and evaluations kept shorter than interactions by their YAML path', () => {
    expect(problems('{ max_size: lots, max_age: -30d }')).toEqual([
      'processors::evaluation::ledger::retention: max_size must be a size such as 64MiB, 1MB or a number of bytes ' +
        '(got string "lots")',
      'processors::evaluation::ledger::retention: max_age must be a duration such as 500ms, 30s, 5m, 1h30m or 7d, ' +
        'or a number of milliseconds (got string "-30d")',
    ]);
    expect(problems('{ max_age: 30d, keep_evaluations: 7d }')).toEqual([
      'processors::evaluation::ledger::retention: keep_evaluations must be at least max_age (keep_evaluations 7d, ' +
        'max_age 30d): evaluations are kept as long as their interaction at least',
    ]);
    expect(problems('{ keep_evaluations: 90d }')).toEqual([
      'processors::evaluation::ledger::retention: keep_evaluations applies to what max_age or max_size prune (set ' +
        'one of them, or remove keep_evaluations)',
    ]);
    expect(problems('{ max_agee: 30d }')[0]).toContain('max_agee is not a known key (did you mean "max_age"?)');
  });
});
