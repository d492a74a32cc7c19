/**
 * Routing and agreement in the configuration: `after` naming no entry (or the entry itself), `when`
 * or `score_below` without `after`, an outcome `when` does not know, a review_timeout that is no
 * duration, and an agreement pair naming no entry are reported by `evalon validate` (and startup)
 * with their YAML paths, all at once.
 */
import { describe, expect, it } from 'vitest';
import { runValidateCommand } from '../../../../collector/cli/validate-command.ts';
import { MINIMAL_PIPELINE, writeConfigFiles } from '../../../helpers/config-files.ts';

async function validate(evaluation: string) {
  const files = writeConfigFiles({
    'otel-config.yaml': `processors:\n  interactions:\n  evaluation:\n${evaluation}${MINIMAL_PIPELINE}`,
  });
  const out: string[] = [];
  const err: string[] = [];
  const code = await runValidateCommand(
    { configFiles: files },
    { out: (line) => out.push(line), err: (line) => err.push(line) },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const PATH = 'processors::evaluation::evaluators';

describe('review routing and agreement in the configuration', () => {
  it('reports bad routes and bad review properties with their YAML paths', async () => {
    const { code, err } = await validate(`    evaluators:
      reply-length:
        min-length: 5
        agents: { support-agent: {} }
      human-review/escalations:
        after: reply-lenght
        when: [fail, broken]
        agents: { support-agent: {} }
      human-review/self:
        after: human-review/self
        agents: { support-agent: {} }
      human-review/audit:
        score_below: 0.5
        review_timeout: soon
        agents: { support-agent: { sampling-ratio: 0.02 } }
`);
    expect(code).toBe(2);
    expect(err).toContain(
      `${PATH}::human-review/escalations::after: names "reply-lenght", which is not an evaluator entry`,
    );
    expect(err).toMatch(
      new RegExp(
        'otel-config.yaml:10:\\d+: processors::evaluation::evaluators::human-review/escalations: when\\[1\\]: ' +
          'must be one of pass, fail, inconclusive, error',
      ),
    );
    expect(err).toMatch(
      /otel-config.yaml:9: processors::evaluation::evaluators::human-review\/escalations::after: names/,
    );
    expect(err).toContain(
      `${PATH}::human-review/self::after: names this entry itself (an entry is routed from another entry's outcome)`,
    );
    expect(err).toContain(`${PATH}::human-review/audit: score_below: routes an entry: set after as well`);
    expect(err).toContain(`${PATH}::human-review/audit: review_timeout: must be a duration`);
  });

  it('reports an agreement pair naming no entry, or one entry twice, and a window below 1', async () => {
    const entries = `    evaluators:
      reply-length:
        min-length: 5
        agents: { support-agent: {} }
`;
    const unknown = await validate(`${entries}    agreement:
      - between: [reply-length, human-review]
      - between: [reply-length, reply-length]
`);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain(
      'processors::evaluation::agreement::0: between[1] names "human-review", which is not an evaluator entry',
    );
    expect(unknown.err).toContain('processors::evaluation::agreement::1: between pairs reply-length with itself');
    const window = await validate(`${entries}    agreement:
      - { between: [reply-length, reply-length], window: 0 }
`);
    expect(window.err).toContain('processors::evaluation::agreement::0: window must be at least 1 (got 0)');
  });

  it('accepts routed and audit review entries and an agreement pair', async () => {
    const { code, out } = await validate(`    evaluators:
      reply-length:
        min-length: 5
        agents: { support-agent: {} }
      human-review/escalations:
        after: reply-length
        when: [fail, error]
        score_below: 0.6
        review_timeout: 3d
        agents: { support-agent: {} }
      human-review/audit:
        agents: { support-agent: { sampling-ratio: 0.02 } }
    agreement:
      - between: [reply-length, human-review/escalations]
        window: 200
`);
    expect(code).toBe(0);
    expect(out).toMatch(/^OK: .*otel-config.yaml \(3 evaluators, 3 bindings\)$/);
  });
});
