import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ConfigError, loadConfig } from '../../../collector/config/index.ts';
import { writeConfigFiles } from '../../helpers/config-files.ts';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures/config');
const shared = join(fixtures, 'merge/shared.yaml');
const production = join(fixtures, 'merge/production.yaml');

describe('several --config files', () => {
  it('applies a deployment override key by key: a lower sampling-ratio, one binding disabled, the rest kept', () => {
    const { config, warnings } = loadConfig([shared, production], { env: {} });
    expect(warnings).toEqual([]);
    const quality = config.processors.evaluation.evaluators['interaction-quality-evaluator']!;
    expect(quality.controlId).toBe('QA-1');
    expect(quality.agents['support-agent']).toEqual({
      trigger: 'interaction',
      properties: {},
      raw: { trigger: 'interaction' },
    });
    expect(quality.agents['billing-agent']).toEqual({
      trigger: 'interaction',
      enabled: false,
      properties: {},
      raw: { trigger: 'interaction', enabled: false },
    });
    expect(quality.agentRoles['customer-facing']).toMatchObject({
      samplingRatio: 0.05,
      raw: { trigger: 'interaction', 'sampling-ratio': 0.05 },
    });
  });

  it('keeps what an empty key in a later file would otherwise wipe', () => {
    const { config } = loadConfig([shared, production], { env: {} });
    expect(config.processors.evaluation.evaluators['reply-length-evaluator']?.properties).toEqual({ 'min-length': 20 });
  });

  it('replaces the ledger choice whole, so an override can switch from sqlite to postgres', () => {
    const { config } = loadConfig([shared, production], { env: {} });
    expect(config.processors.evaluation.ledger).toEqual({ kind: 'postgres', url: 'postgres://evalon@db:5432/evalon' });
  });

  it('replaces lists, and resolves each module relative to the file that listed it', () => {
    const [override] = writeConfigFiles({
      'override.yaml': 'processors:\n  evaluation:\n    modules: [ ./evaluators.ts ]\n',
    });
    let error: unknown;
    try {
      loadConfig([shared, override!], { env: {} });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems).toEqual([
      {
        file: override,
        line: 3,
        column: 16,
        path: 'processors::evaluation',
        message:
          `modules[0] names "./evaluators.ts", which does not exist (looked for ` +
          `${join(dirname(override!), 'evaluators.ts')})`,
      },
    ]);
    expect(loadConfig([shared], { env: {} }).config.processors.evaluation.modules).toEqual([
      join(fixtures, 'modules/evaluators.ts'),
    ]);
  });

  it('places a problem in the file that wrote the offending value', () => {
    const [override] = writeConfigFiles({
      'override.yaml':
        'processors:\n  evaluation:\n    evaluators:\n      interaction-quality-evaluator:\n        agents:\n    ' +
        '      billing-agent: { sampling-ratio: 2 }\n',
    });
    let error: unknown;
    try {
      loadConfig([shared, override!], { env: {} });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems).toEqual([
      {
        file: override,
        line: 6,
        column: 28,
        path: 'processors::evaluation::evaluators::interaction-quality-evaluator::agents::billing-agent',
        message: 'sampling-ratio must be between 0 and 1 (got 2)',
      },
    ]);
  });
});
