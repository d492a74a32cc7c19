import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../collector/config/index.ts';
import { writeConfigFiles } from '../../helpers/config-files.ts';

/** A valid configuration whose receiver and one evaluator entry take the given YAML lines. */
function configWith(options: { http?: string[]; grpc?: string[]; entry?: string[]; headers?: string[] }): string {
  return [
    'receivers:',
    '  otlp:',
    '    protocols:',
    '      http:',
    ...(options.http ?? []).map((line) => `        ${line}`),
    ...(options.grpc ? ['      grpc:', ...options.grpc.map((line) => `        ${line}`)] : []),
    'processors:',
    '  interactions:',
    '  evaluation:',
    '    evaluators:',
    '      reply-length:',
    ...(options.entry ?? []).map((line) => `        ${line}`),
    '        agents:',
    '          support-agent: { trigger: interaction }',
    ...(options.headers
      ? [
          'exporters:',
          '  otlphttp:',
          '    endpoint: http://127.0.0.1:4328',
          '    headers:',
          ...options.headers.map((line) => `      ${line}`),
        ]
      : []),
    'service:',
    '  pipelines:',
    `    traces: { receivers: [otlp], processors: [interactions, ` +
      `evaluation]${options.headers ? ', exporters: [otlphttp]' : ''} }`,
    '',
  ].join('\n');
}

function load(yaml: string, env: Record<string, string | undefined>) {
  const [file] = writeConfigFiles({ 'otel-config.yaml': yaml });
  return loadConfig([file!], { env });
}

function problems(yaml: string, env: Record<string, string | undefined>) {
  try {
    load(yaml, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('${env:NAME} expansion', () => {
  it('substitutes a set variable, inside text too', () => {
    const { config } = load(configWith({ entry: ['greeting: "hello ${env:USER_NAME}, welcome"'] }), {
      USER_NAME: 'Ada',
    });
    expect(config.processors.evaluation.evaluators['reply-length']?.properties).toEqual({
      greeting: 'hello Ada, welcome',
    });
  });

  it('gives a value that is one reference the type of its text: numbers and booleans, losslessly', () => {
    const { config } = load(
      configWith({
        http: ['endpoint: 127.0.0.1:${env:PORT}'],
        entry: ['min-length: ${env:MIN}', 'strict: ${env:STRICT}', 'code: ${env:CODE}', 'label: "${env:MIN} chars"'],
      }),
      { PORT: '5318', MIN: '50', STRICT: 'true', CODE: '0123' },
    );
    expect(config.receivers.otlp?.http.port).toBe(5318);
    expect(config.processors.evaluation.evaluators['reply-length']?.properties).toEqual({
      'min-length': 50,
      strict: true,
      code: '0123',
      label: '50 chars',
    });
  });

  it('gives a text key its text back when the variable holds a number', () => {
    const yaml = configWith({ http: ['auth: { bearer_token: "${env:EVALON_INGEST_TOKEN}" }'] });
    expect(load(yaml, { EVALON_INGEST_TOKEN: '123456' }).config.receivers.otlp?.http.bearerToken).toBe('123456');
  });

  it('uses the default when the variable is unset or empty, as a shell does', () => {
    const yaml = configWith({ entry: ['model: ${env:EVALON_MODEL:-claude-haiku-4-5}', 'min-length: ${env:MIN:-20}'] });
    for (const env of [{}, { EVALON_MODEL: '', MIN: '' }]) {
      expect(load(yaml, env).config.processors.evaluation.evaluators['reply-length']?.properties).toEqual({
        model: 'claude-haiku-4-5',
        'min-length': 20,
      });
    }
    expect(
      load(yaml, { EVALON_MODEL: 'claude-opus-4' }).config.processors.evaluation.evaluators['reply-length']?.properties
        .model,
    ).toBe('claude-opus-4');
  });

  it('reports an unset variable without default with the variable, the path and the line', () => {
    expect(problems(configWith({ entry: ['model: ${env:EVALON_MODEL}'] }), {})).toEqual([
      {
        file: expect.stringMatching(/otel-config\.yaml$/),
        line: 10,
        column: 9,
        path: 'processors::evaluation::evaluators::reply-length',
        message:
          'model uses ${env:EVALON_MODEL}, which is not set (set EVALON_MODEL, or give a default: ' +
          '${env:EVALON_MODEL:-value})',
      },
    ]);
  });

  it('leaves an optional key out when its variable is unset or empty: auth.bearer_token and exporter headers', () => {
    const yaml = configWith({
      http: ['auth: { bearer_token: "${env:EVALON_INGEST_TOKEN}" }'],
      grpc: ['endpoint: 127.0.0.1:0', 'auth: { bearer_token: "${env:EVALON_INGEST_TOKEN}" }'],
      headers: ['authorization: "Bearer ${env:EXPORT_TOKEN}"', 'x-tenant: acme'],
    });
    for (const env of [{}, { EVALON_INGEST_TOKEN: '' }]) {
      const { config } = load(yaml, env);
      expect(config.receivers.otlp?.http).not.toHaveProperty('bearerToken');
      expect(config.receivers.otlp?.grpc).not.toHaveProperty('bearerToken');
      expect(config.exporters.otlphttp?.headers).toEqual({ 'x-tenant': 'acme' });
    }
    const { config } = load(yaml, { EVALON_INGEST_TOKEN: 's3cret', EXPORT_TOKEN: 'e' });
    expect(config.receivers.otlp?.http.bearerToken).toBe('s3cret');
    expect(config.receivers.otlp?.grpc?.bearerToken).toBe('s3cret');
    expect(config.exporters.otlphttp?.headers).toEqual({ authorization: 'Bearer e', 'x-tenant': 'acme' });
  });

  it('keeps $${ as a literal ${ and leaves other ${…} text alone, warning when it looks like a variable', () => {
    const { config, warnings } = load(
      configWith({ entry: ['template: "$${env:NOT_EXPANDED} {transcript} ${PROMPT}"'] }),
      { NOT_EXPANDED: 'x', PROMPT: 'y' },
    );
    expect(config.processors.evaluation.evaluators['reply-length']?.properties.template).toBe(
      '${env:NOT_EXPANDED} {transcript} ${PROMPT}',
    );
    expect(warnings).toEqual([
      expect.stringContaining(
        'template contains ${PROMPT}, which is not expanded (write ${env:PROMPT} to read the environment variable)',
      ),
    ]);
  });

  it('rejects malformed references and invalid names', () => {
    const found = problems(configWith({ entry: ['a: ${env:MODEL:default}', 'b: ${env:1BAD}'] }), {});
    expect(found.map((problem) => problem.message)).toEqual([
      'a has a malformed reference ${env:MODEL:default} (write ${env:NAME} or ${env:NAME:-default})',
      'b names an invalid environment variable "1BAD" in ${env:1BAD}',
    ]);
  });

  it('does not ask for a variable whose value a later file overrides', () => {
    const [base, override] = writeConfigFiles({
      'base.yaml': configWith({ entry: ['model: ${env:EVALON_MODEL}'] }),
      'override.yaml':
        'processors:\n  evaluation:\n    evaluators:\n      reply-length:\n        model: claude-haiku-4-5\n',
    });
    const { config } = loadConfig([base!, override!], { env: {} });
    expect(config.processors.evaluation.evaluators['reply-length']?.properties.model).toBe('claude-haiku-4-5');
  });

  it('reads process.env when no environment is given', () => {
    process.env.EVALON_CONFIG_TEST_MIN = '33';
    try {
      const [file] = writeConfigFiles({
        'otel-config.yaml': configWith({ entry: ['min-length: ${env:EVALON_CONFIG_TEST_MIN}'] }),
      });
      expect(
        loadConfig([file!]).config.processors.evaluation.evaluators['reply-length']?.properties['min-length'],
      ).toBe(33);
    } finally {
      delete process.env.EVALON_CONFIG_TEST_MIN;
    }
  });
});
