/** `receivers.otlp.protocols.grpc`: off unless written, its defaults, and its errors with YAML paths. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type ConfigProblem } from '../../../collector/config/index.ts';
import { writeConfigFiles } from '../../helpers/config-files.ts';

function withProtocols(protocols: string): string {
  return `receivers:
  otlp:
    protocols:
${protocols}
processors:
  interactions:
  evaluation:
service:
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`;
}

function load(yaml: string) {
  return loadConfig(writeConfigFiles({ 'otel-config.yaml': yaml }), { env: {} }).config;
}

function problemsOf(yaml: string): ConfigProblem[] {
  try {
    load(yaml);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration loaded, but problems were expected');
}

describe('receivers.otlp.protocols.grpc', () => {
  it('is off when not written, and http keeps its defaults', () => {
    const config = load(withProtocols('      http:'));
    expect(config.receivers.otlp).toEqual({
      http: { host: '127.0.0.1', port: 4318, maxRequestBodyBytes: 64 * 1024 * 1024 },
    });
    expect(config.receivers.otlp).not.toHaveProperty('grpc');
  });

  it('takes the OpenTelemetry Collector defaults when written empty: 127.0.0.1:4317, 4 MiB', () => {
    const config = load(withProtocols('      grpc:'));
    expect(config.receivers.otlp?.grpc).toEqual({ host: '127.0.0.1', port: 4317, maxRecvMsgBytes: 4 * 1024 * 1024 });
    expect(config.receivers.otlp?.http).toEqual({
      host: '127.0.0.1',
      port: 4318,
      maxRequestBodyBytes: 64 * 1024 * 1024,
    });
  });

  it('reads endpoint, max_recv_msg_size_mib and auth.bearer_token', () => {
    const config = load(
      withProtocols(`      grpc:
        endpoint: 0.0.0.0:14317
        max_recv_msg_size_mib: 16
        auth: { bearer_token: replica-token }`),
    );
    expect(config.receivers.otlp?.grpc).toEqual({
      host: '0.0.0.0',
      port: 14317,
      maxRecvMsgBytes: 16 * 1024 * 1024,
      bearerToken: 'replica-token',
    });
  });

  it('reports every bad grpc value at once, with its YAML path and line', () => {
    const problems = problemsOf(
      withProtocols(`      grpc:
        endpoint: grpc://127.0.0.1:4317
        max_recv_msg_size_mib: 4MiB
        max_request_body_size: 1MiB`),
    );
    const found = problems.map((p) => [p.line, p.path, p.message]);
    expect(found).toEqual([
      [
        5,
        'receivers::otlp::protocols::grpc',
        expect.stringContaining('endpoint must be host:port without a scheme (got string "grpc://127.0.0.1:4317")'),
      ],
      [
        6,
        'receivers::otlp::protocols::grpc',
        expect.stringContaining('max_recv_msg_size_mib must be a whole number (got string "4MiB")'),
      ],
      [7, 'receivers::otlp::protocols::grpc', expect.stringContaining('max_request_body_size is not a known key')],
    ]);
  });

  it('reports an out-of-range port and a zero size', () => {
    const problems = problemsOf(
      withProtocols(`      grpc:
        endpoint: 127.0.0.1:70000
        max_recv_msg_size_mib: 0`),
    );
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'receivers::otlp::protocols::grpc: endpoint has port 70000, which is out of range (0-65535)',
      'receivers::otlp::protocols::grpc: max_recv_msg_size_mib must be at least 1 (got 0)',
    ]);
  });

  it('suggests grpc for a misspelled protocol', () => {
    const problems = problemsOf(withProtocols('      gprc:'));
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'receivers::otlp::protocols: gprc is not a known key (did you mean "grpc"?)',
    ]);
  });
});
