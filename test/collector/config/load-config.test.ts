import { readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type ConfigProblem } from '../../../collector/config/index.ts';
import { writeConfigFiles } from '../../helpers/config-files.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = join(root, 'test/fixtures/config');
const fixtureModule = join(fixtures, 'modules/evaluators.ts');
const yamlFiles = (folder: string) =>
  readdirSync(join(fixtures, folder))
    .filter((name) => name.endsWith('.yaml'))
    .sort();

function problemsOf(files: string[], env: Record<string, string> = {}): ConfigProblem[] {
  try {
    loadConfig(files, { env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error(`${files.join(', ')} loaded, but problems were expected`);
}

/** [line, path, a fragment of the message] for every problem each bad fixture must report, and no others. */
const BAD_FIXTURES: Record<string, Array<[number, string, string]>> = {
  'binding-values.yaml': [
    [
      6,
      'processors::evaluation::evaluators::interaction-quality-evaluator',
      'enabled must be true or false (got string "yes")',
    ],
    [
      7,
      'processors::evaluation::evaluators::interaction-quality-evaluator',
      'control-id must be a non-empty string (got a list)',
    ],
    [
      9,
      'processors::evaluation::evaluators::interaction-quality-evaluator::agents::support-agent',
      'sampling-ratio must be between 0 and 1 (got 1.5)',
    ],
    [
      10,
      'processors::evaluation::evaluators::interaction-quality-evaluator::agents::billing-agent',
      'trigger must be one of "interaction", "conversation" (got string "message")',
    ],
    [
      10,
      'processors::evaluation::evaluators::interaction-quality-evaluator::agents::billing-agent',
      'trigger-on-failure must be true or false',
    ],
    [
      12,
      'processors::evaluation::evaluators::interaction-quality-evaluator::agent-roles::customer-facing',
      'sampling-ratio must be a number between 0 and 1',
    ],
    [
      12,
      'processors::evaluation::evaluators::interaction-quality-evaluator::agent-roles::customer-facing',
      'enabled must be true or false',
    ],
  ],
  'ledger-and-timing.yaml': [
    [5, 'processors::interactions', 'settle must be shorter than decision_wait'],
    [7, 'processors::interactions', 'max_pending_traces must be at least 1'],
    [8, 'processors::interactions', 'conversation_idle must be a duration'],
    [10, 'processors::evaluation', 'concurrency must be at least 1'],
    [11, 'processors::evaluation', 'ledger sets both sqlite and postgres (choose one)'],
  ],
  'misplaced-reserved-keys.yaml': [
    [
      6,
      'processors::evaluation::defaults::evaluator',
      'sampling-ratio is a binding setting (set it under defaults::agent)',
    ],
    [7, 'processors::evaluation::defaults::agent', 'min-length is not allowed under defaults'],
    [
      10,
      'processors::evaluation::evaluators::reply-length-evaluator',
      'sampling-ratio is not allowed on an evaluator entry (set it on a binding',
    ],
    [
      11,
      'processors::evaluation::evaluators::reply-length-evaluator',
      'trigger-on-failure is not allowed on an evaluator entry',
    ],
    [12, 'processors::evaluation::evaluators::reply-length-evaluator', 'trigger is not allowed on an evaluator entry'],
    [14, 'processors::evaluation::evaluators::reply-length-evaluator::agents', '* is only allowed under agent-roles'],
    [
      15,
      'processors::evaluation::evaluators::reply-length-evaluator::agents::support-agent',
      'control-id is not allowed on a binding',
    ],
  ],
  'missing-module.yaml': [
    [4, 'processors::evaluation', 'modules[1] names "./no-such-evaluators.ts", which does not exist'],
  ],
  'not-a-mapping.yaml': [[2, '', 'the file must hold a mapping']],
  'retention-keep.yaml': [
    [
      8,
      'processors::evaluation::ledger::retention',
      'keep_evaluations must be at least max_age (keep_evaluations 7d, max_age 30d)',
    ],
  ],
  'retention-values.yaml': [
    [6, 'processors::evaluation::ledger::retention', 'max_size must be a size such as 64MiB, 1MB or a number of bytes'],
    [7, 'processors::evaluation::ledger::retention', 'max_age must be a duration such as 500ms, 30s, 5m, 1h30m or 7d'],
  ],
  'pipeline-references.yaml': [
    [13, 'service', 'extensions[1] references extension "health", which is not configured (configured: api)'],
    [15, 'service::pipelines::traces', 'receivers[1] references receiver "jaeger", which is not configured'],
    [
      15,
      'service::pipelines::traces',
      'processors[1] references processor "evaluator", which is not configured (did you mean "evaluation"?)',
    ],
    [15, 'service::pipelines::traces', 'exporters[0] names prometheus, which exports only metrics'],
    [16, 'service::pipelines::logs', 'exporters[1] lists "otlphttp" a second time'],
  ],
  'pipeline-signals.yaml': [
    [12, 'service::pipelines::traces', 'processors must list interactions before evaluation'],
    [12, 'service::pipelines::traces', 'exporters[0] names prometheus, which exports only metrics'],
    [13, 'service::pipelines::logs', 'receivers is not allowed: the logs pipeline has no receivers'],
    [13, 'service::pipelines::logs', 'exporters[0] names prometheus, which exports only metrics'],
    [14, 'service::pipelines::metrics', 'processors is not allowed: the metrics pipeline has no processors'],
  ],
  'unknown-keys.yaml': [
    [2, '', 'receiver is not a known top-level key (did you mean "receivers"?)'],
    [5, 'processors', 'interaction is not a known key (did you mean "interactions"?)'],
    [8, 'processors::evaluation', 'concurency is not a known key (did you mean "concurrency"?)'],
    [10, 'exporters', 'otlp_http is not a known key (did you mean "otlphttp"?)'],
    [13, 'service::pipelines', 'trace is not a known key (did you mean "traces"?)'],
  ],
  'unset-variable.yaml': [
    [8, 'processors::evaluation::ledger::postgres', 'url uses ${env:EVALON_POSTGRES_URL}, which is not set'],
    [11, 'processors::evaluation::evaluators::criteria-judge', 'model uses ${env:EVALON_MODEL}, which is not set'],
  ],
  'values.yaml': [
    [6, 'receivers::otlp::protocols::http', 'endpoint must be host:port without a scheme'],
    [7, 'receivers::otlp::protocols::http', 'max_request_body_size must be a size such as 64MiB'],
    [10, 'processors::interactions', 'settle must be a duration such as 500ms, 30s, 5m, 1h30m or 7d'],
    [11, 'processors::interactions', 'decision_wait must be longer than 0'],
    [14, 'exporters::otlphttp', 'endpoint must be an http:// or https:// URL'],
    [15, 'exporters::otlphttp', 'compression must be one of "gzip", "none" (got string "zstd")'],
    [17, 'exporters::prometheus', 'endpoint has port 70000, which is out of range'],
    [19, 'extensions::api', 'endpoint must be host:port'],
  ],
  'yaml-syntax.yaml': [[5, '', 'YAML syntax error: Map keys must be unique']],
};

describe('loadConfig', () => {
  it('loads the shipped otel-config.yaml with its defaults and no warnings', () => {
    const { config, warnings } = loadConfig([join(root, 'otel-config.yaml')], { env: {} });
    expect(warnings).toEqual([]);
    expect(config.receivers.otlp).toEqual({
      http: { host: '127.0.0.1', port: 4318, maxRequestBodyBytes: 64 * 1024 * 1024 },
    });
    expect(config.processors.interactions).toEqual({
      settleMs: 2_000,
      decisionWaitMs: 30_000,
      maxPendingTraces: 100_000,
      maxWaitingTraces: 100_000,
      conversationIdleMs: 900_000,
    });
    const { evaluators, ...evaluation } = config.processors.evaluation;
    expect(evaluation).toEqual({
      ledger: { kind: 'sqlite', path: join(root, 'data/ledger.db') },
      concurrency: 64,
      modelUnavailableRetryForMs: 3_600_000,
      leaseDurationMs: 30_000,
      modules: [join(root, 'examples/evaluators/index.ts')],
      defaults: { evaluator: { enabled: true }, agent: { samplingRatio: 1, triggerOnFailure: false } },
      agreement: [],
    });
    expect(Object.keys(evaluators)).toEqual(['interaction-quality-evaluator', 'reply-length-evaluator']);
    expect(config.extensions).toEqual({ api: { host: '127.0.0.1', port: 4319 } });
    expect(config.exporters).toEqual({});
    expect(config.service).toEqual({
      extensions: ['api'],
      telemetry: { logs: { level: 'info', encoding: 'console' } },
      pipelines: {
        traces: { receivers: ['otlp'], processors: ['interactions', 'evaluation'], exporters: [], forward: false },
      },
    });
  });

  it.each(yamlFiles('good'))('loads good/%s without problems or warnings', (name) => {
    const { warnings } = loadConfig([join(fixtures, 'good', name)], { env: {} });
    expect(warnings).toEqual([]);
  });

  it('has expectations for every bad fixture', () => {
    expect(yamlFiles('bad')).toEqual(Object.keys(BAD_FIXTURES).sort());
  });

  it.each(yamlFiles('bad'))('rejects bad/%s with exactly the expected problems', (name) => {
    const file = join(fixtures, 'bad', name);
    const problems = problemsOf([file]);
    const expected = BAD_FIXTURES[name] ?? [];
    expect(problems.map(({ line, path }) => [line, path])).toEqual(expected.map(([line, path]) => [line, path]));
    problems.forEach((problem, index) => {
      expect(problem.file).toBe(file);
      expect(problem.message).toContain(expected[index]![2]);
    });
  });

  it('reads the complete configuration example into the normalised shape', () => {
    const { config } = loadConfig([join(fixtures, 'good/spec-example.yaml')], {
      env: { EVALON_INGEST_TOKEN: 'ingest-secret' },
    });
    expect(config.receivers.otlp?.http.bearerToken).toBe('ingest-secret');
    expect(config.processors.evaluation.modules).toEqual([fixtureModule]);
    expect(config.processors.evaluation.ledger).toEqual({
      kind: 'sqlite',
      path: join(fixtures, 'good/data/ledger.db'),
    });
    expect(config.processors.evaluation.evaluators['interaction-quality-evaluator']?.controlId).toBe('QA-1');
    expect(config.exporters).toEqual({
      otlphttp: { endpoint: 'http://127.0.0.1:4328', headers: {}, compression: 'gzip', timeoutMs: 10_000 },
      prometheus: { host: '127.0.0.1', port: 9464 },
    });
    expect(config.service.pipelines).toEqual({
      traces: {
        receivers: ['otlp'],
        processors: ['interactions', 'evaluation'],
        exporters: ['otlphttp'],
        forward: false,
      },
      logs: { exporters: ['otlphttp'] },
      metrics: { exporters: ['prometheus', 'otlphttp'] },
    });
  });

  it('keeps the documented binding examples as properties and raw maps', () => {
    const { config } = loadConfig([join(fixtures, 'good/binding-examples.yaml')], { env: {} });
    const evaluators = config.processors.evaluation.evaluators;
    expect(evaluators['interaction-quality-evaluator']).toEqual({
      properties: {},
      raw: {},
      agents: {
        'support-agent': { trigger: 'interaction', properties: {}, raw: { trigger: 'interaction' } },
        'billing-agent': {
          trigger: 'interaction',
          enabled: false,
          properties: {},
          raw: { trigger: 'interaction', enabled: false },
        },
      },
      agentRoles: { 'customer-facing': { trigger: 'interaction', properties: {}, raw: { trigger: 'interaction' } } },
    });
    expect(evaluators['reply-length-evaluator']).toEqual({
      properties: { 'min-length': 20 },
      raw: { 'min-length': 20 },
      agents: {
        'support-agent': { trigger: 'interaction', properties: {}, raw: { trigger: 'interaction' } },
        'billing-agent': {
          trigger: 'interaction',
          properties: { 'min-length': 50 },
          raw: { trigger: 'interaction', 'min-length': 50 },
        },
      },
      agentRoles: {},
    });
  });

  it(
    'keeps reserved keys in raw and out of properties, ' +
      'and takes the settings of the complete configuration example',
    () => {
      const { config } = loadConfig([join(fixtures, 'good/postgres-replica.yaml')], { env: {} });
      const judge = config.processors.evaluation.evaluators['criteria-judge']!;
      expect(judge.enabled).toBe(true);
      expect(judge.raw).toMatchObject({ enabled: true, 'control-id': 'SAFE-2', model: 'claude-sonnet-4-5' });
      expect(Object.keys(judge.properties)).toEqual(['model', 'criteria']);
      expect(judge.agents['judge-agent']).toEqual({
        trigger: 'interaction',
        enabled: false,
        properties: {},
        raw: { enabled: false },
      });
      expect(judge.agentRoles['*']).toMatchObject({
        samplingRatio: 0.05,
        raw: { trigger: 'interaction', 'sampling-ratio': 0.05 },
      });
      expect(config.processors.interactions).toEqual({
        settleMs: 1_500,
        decisionWaitMs: 90_000,
        maxPendingTraces: 5_000,
        maxWaitingTraces: 20_000,
        pendingSpansMemoryBytes: 32 * 1024 * 1024,
        conversationIdleMs: 900_000,
      });
      expect(config.receivers.otlp?.http).toEqual({
        host: '0.0.0.0',
        port: 4318,
        maxRequestBodyBytes: 8_000_000,
        bearerToken: 'replica-token',
      });
      expect(config.exporters.prometheus).toEqual({ host: '::', port: 9464 });
      expect(config.exporters.otlphttp?.endpoint).toBe('https://otlp.example.com/otlp');
    },
  );

  it('reports every problem of a file at once, each with its file, line, column and path, one per line', () => {
    const [file] = writeConfigFiles({
      'several.yaml': [
        'receivers:',
        '  otlp:',
        'processors:',
        '  interactions: { settle: 2s, decision_wait: 30s }',
        '  evaluation:',
        '    concurrency: many',
        '    evaluators:',
        '      x:',
        '        agents:',
        '          y: { trigger: interaction, sampling-ratio: 1.5 }',
        'service:',
        '  pipelines:',
        '    traces: { receivers: [otlp], processors: [interactions, evaluation], exporters: [otlphttp] }',
        '',
      ].join('\n'),
    });
    let error: unknown;
    try {
      loadConfig([file!], { env: {} });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).name).toBe('ConfigError');
    expect((error as ConfigError).message.split('\n')).toEqual([
      'invalid configuration (3 problems):',
      `${file}:6:5: processors::evaluation: concurrency must be a whole number (got string "many")`,
      `${file}:10:38: processors::evaluation::evaluators::x::agents::y: sampling-ratio must be between 0 and 1 ` +
        `(got 1.5)`,
      `${file}:13:86: service::pipelines::traces: exporters[0] references exporter "otlphttp", which is not ` +
        `configured (no exporters are configured; define it under exporters::otlphttp)`,
    ]);
    expect((error as ConfigError).problems[1]).toEqual({
      file,
      line: 10,
      column: 38,
      path: 'processors::evaluation::evaluators::x::agents::y',
      message: 'sampling-ratio must be between 0 and 1 (got 1.5)',
    });
  });

  it('reports unreadable files and syntax errors of every file before validating', () => {
    const [broken] = writeConfigFiles({ 'broken.yaml': 'service:\n  pipelines: [\n' });
    const missing = join(dirname(broken!), 'missing.yaml');
    const problems = problemsOf([broken!, missing]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatchObject({ file: broken, line: 3, column: 1 });
    expect(problems[0]!.message).toMatch(/^YAML syntax error: /);
    expect(problems[1]).toEqual({
      file: missing,
      path: '',
      message: 'cannot read the configuration file: file not found',
    });
  });

  it('rejects an empty list of files', () => {
    expect(() => loadConfig([])).toThrow(/no configuration file given/);
  });

  it('points at the anchor a merged (<<) key came from', () => {
    const [file] = writeConfigFiles({
      'anchors.yaml': [
        'x-binding: &binding { trigger: interaction, sampling-ratio: 3 }',
        'processors:',
        '  evaluation:',
        '    evaluators:',
        '      x:',
        '        agents:',
        '          y: { <<: *binding }',
        '',
      ].join('\n'),
    });
    const problems = problemsOf([file!]);
    expect(problems.map((problem) => [problem.line, problem.path, problem.message])).toContainEqual([
      1,
      'processors::evaluation::evaluators::x::agents::y',
      'sampling-ratio must be between 0 and 1 (got 3)',
    ]);
    expect(basename(problems[0]!.file!)).toBe('anchors.yaml');
  });
});
