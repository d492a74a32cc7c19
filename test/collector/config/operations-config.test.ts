/**
 * The operations keys of the configuration: exporters named `type/name`, `tls` on what listens and
 * on `otlphttp` exporters (files resolved against the file that wrote them and checked at load),
 * `extensions.api.auth`, `service.telemetry.logs`. Bad values are problems with their file, line
 * and YAML path, all at once.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type ConfigProblem } from '../../../collector/config/index.ts';
import { createTestCertificates, type TestCertificates } from '../../helpers/certificates.ts';
import { writeConfigFiles } from '../../helpers/config-files.ts';

let certs: TestCertificates;
beforeAll(() => {
  certs = createTestCertificates();
});
afterAll(() => certs.remove());

function problemsOf(yaml: string): ConfigProblem[] {
  const [file] = writeConfigFiles({ 'otel-config.yaml': yaml });
  try {
    loadConfig([file!], { env: {} });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => ({ ...problem, file: undefined }));
    throw error;
  }
  throw new Error('the configuration loaded, but problems were expected');
}

const format = (problems: ConfigProblem[]) =>
  problems.map((problem) => `${problem.line}: ${problem.path}: ${problem.message}`);

/** Processors and the traces pipeline every configuration below shares (lines 1-5). */
const BASE = `processors:
  interactions:
  evaluation:
receivers:
  otlp:
`;

describe('exporters named type/name', () => {
  it('configures two otlphttp exporters with their own settings, each listed by id', () => {
    const [file] = writeConfigFiles({
      'otel-config.yaml': `${BASE}exporters:
  otlphttp/tempo: { endpoint: "http://tempo:4318", headers: { x-scope-orgid: acme } }
  otlphttp/langfuse: { endpoint: "https://langfuse.example/api/public/otel", compression: none, timeout: 3s }
  prometheus/scrape: { endpoint: 127.0.0.1:0 }
service:
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation], exporters: [otlphttp/tempo] }
    logs: { exporters: [otlphttp/tempo, otlphttp/langfuse] }
    metrics: { exporters: [prometheus/scrape, otlphttp/langfuse] }
`,
    });
    const { config } = loadConfig([file!], { env: {} });
    expect(config.exporters['otlphttp/tempo']).toEqual({
      endpoint: 'http://tempo:4318',
      headers: { 'x-scope-orgid': 'acme' },
      compression: 'gzip',
      timeoutMs: 10_000,
    });
    expect(config.exporters['otlphttp/langfuse']).toMatchObject({ compression: 'none', timeoutMs: 3000 });
    expect(config.exporters['prometheus/scrape']).toEqual({ host: '127.0.0.1', port: 0 });
    expect(config.service.pipelines.logs?.exporters).toEqual(['otlphttp/tempo', 'otlphttp/langfuse']);
  });

  it('leaves a header of a named otlphttp exporter out when its variable is unset, as for otlphttp', () => {
    const [file] = writeConfigFiles({
      'otel-config.yaml': `${BASE}exporters:
  otlphttp/langfuse:
    endpoint: https://cloud.langfuse.com/api/public/otel
    headers: { authorization: "Basic \${env:LANGFUSE_AUTH}", x-tenant: acme }
service:
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
    logs: { exporters: [otlphttp/langfuse] }
`,
    });
    expect(loadConfig([file!], { env: {} }).config.exporters['otlphttp/langfuse']?.headers).toEqual({
      'x-tenant': 'acme',
    });
    expect(
      loadConfig([file!], { env: { LANGFUSE_AUTH: 'cGs6c2s=' } }).config.exporters['otlphttp/langfuse']?.headers,
    ).toEqual({ authorization: 'Basic cGs6c2s=', 'x-tenant': 'acme' });
  });

  it('reports an unknown type with a "did you mean", an empty name, a misplaced signal and an unused exporter', () => {
    const problems = problemsOf(`${BASE}exporters:
  otlphtp/x: { endpoint: "http://a:1" }
  otlphttp/: { endpoint: "http://b:1" }
  /tempo: { endpoint: "http://c:1" }
  otlphttp/unused: { endpoint: "http://d:1" }
  prometheus/scrape: {}
  otlphttp/bad: { endpoint: "ftp://e" }
service:
  pipelines:
    traces:
      receivers: [otlp]
      processors: [interactions, evaluation]
      exporters: [prometheus/scrape, otlphttp/bad, otlphttp/tempo]
`);
    expect(format(problems)).toEqual([
      '7: exporters: otlphtp/x has an unknown exporter type "otlphtp" (did you mean "otlphttp"?)',
      '8: exporters: otlphttp/ has an empty name after "/" (write otlphttp/<name>, such as otlphttp/primary)',
      '9: exporters: /tempo has no type before "/" (write type/name, such as otlphttp/tempo)',
      '10: exporters: otlphttp/unused is not used by any pipeline (add it to the exporters of a pipeline under ' +
        'service::pipelines, or remove it)',
      '12: exporters::otlphttp/bad: endpoint must be an http:// or https:// URL (got string "ftp://e")',
      '18: service::pipelines::traces: exporters[0] names prometheus/scrape, which exports only metrics',
      '18: service::pipelines::traces: exporters[2] references exporter "otlphttp/tempo", which is not configured ' +
        '(configured: otlphtp/x, otlphttp/, /tempo, otlphttp/unused, prometheus/scrape, otlphttp/bad)',
    ]);
  });
});

describe('tls', () => {
  it('resolves relative files against the file that wrote them and keeps the keys', () => {
    const [file] = writeConfigFiles({
      'otel-config.yaml': `processors:
  interactions:
  evaluation:
receivers:
  otlp:
    protocols:
      http: { tls: { cert_file: certs/server.pem, key_file: certs/server.key, client_ca_file: certs/ca.pem } }
      grpc: { tls: { cert_file: certs/server.pem, key_file: certs/server.key } }
extensions:
  api:
    auth: { bearer_token: "\${env:API_TOKEN}" }
    tls: { cert_file: certs/server.pem, key_file: certs/server.key }
exporters:
  otlphttp/secure:
    endpoint: https://127.0.0.1:4318
    tls: { ca_file: certs/ca.pem, cert_file: certs/client.pem, key_file: certs/client.key }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
    logs: { exporters: [otlphttp/secure] }
`,
    });
    const dir = join(dirname(file!), 'certs');
    mkdirSync(dir);
    const contents: Record<string, Buffer> = {
      'server.pem': certs.server.cert,
      'server.key': certs.server.key,
      'ca.pem': certs.ca.cert,
      'client.pem': certs.client.cert,
      'client.key': certs.client.key,
    };
    for (const [name, pem] of Object.entries(contents)) writeFileSync(join(dir, name), pem);
    const { config } = loadConfig([file!], { env: { API_TOKEN: 's3cret-api-token' } });
    expect(config.receivers.otlp?.http.tls).toEqual({
      certFile: join(dir, 'server.pem'),
      keyFile: join(dir, 'server.key'),
      clientCaFile: join(dir, 'ca.pem'),
    });
    expect(config.receivers.otlp?.grpc?.tls).toEqual({
      certFile: join(dir, 'server.pem'),
      keyFile: join(dir, 'server.key'),
    });
    expect(config.extensions.api).toMatchObject({
      bearerToken: 's3cret-api-token',
      tls: { certFile: join(dir, 'server.pem') },
    });
    expect(config.exporters['otlphttp/secure']?.tls).toEqual({
      caFile: join(dir, 'ca.pem'),
      insecureSkipVerify: false,
      certFile: join(dir, 'client.pem'),
      keyFile: join(dir, 'client.key'),
    });
  });

  it('reports a missing key, files that are missing, unreadable, not PEM or not the pair, and tls on http://', () => {
    const dir = dirname(writeConfigFiles({ 'x.pem': 'not a certificate' })[0]!);
    const problems = problemsOf(`processors:
  interactions:
  evaluation:
receivers:
  otlp:
    protocols:
      http:
        tls: { cert_file: ${certs.server.certFile} }
      grpc:
        tls: { cert_file: ${join(dir, 'missing.pem')}, key_file: ${dir} }
extensions:
  api:
    tls: { cert_file: ${join(dir, 'x.pem')}, key_file: ${certs.server.keyFile}, client_ca_file: ${join(dir, 'x.pem')} }
exporters:
  prometheus:
    tls: { cert_file: ${certs.server.certFile}, key_file: ${certs.client.keyFile} }
  otlphttp:
    endpoint: http://127.0.0.1:4318
    tls: { cert_file: ${certs.client.certFile} }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation], exporters: [otlphttp] }
    metrics: { exporters: [prometheus] }
`);
    expect(format(problems)).toEqual([
      '8: receivers::otlp::protocols::http::tls: key_file is required (the PEM private key of cert_file)',
      `10: receivers::otlp::protocols::grpc::tls: cert_file ${join(dir, 'missing.pem')} does not exist`,
      `10: receivers::otlp::protocols::grpc::tls: key_file ${dir} is a directory`,
      `13: extensions::api::tls: cert_file ${join(dir, 'x.pem')} does not hold a PEM certificate ` +
        '(-----BEGIN CERTIFICATE-----)',
      `13: extensions::api::tls: client_ca_file ${join(dir, 'x.pem')} does not hold PEM CA certificates ` +
        '(-----BEGIN CERTIFICATE-----)',
      `16: exporters::prometheus::tls: key_file ${certs.client.keyFile} is not the private key of cert_file`,
      '19: exporters::otlphttp::tls: key_file is required with cert_file (a client certificate is a cert_file and ' +
        'its key_file)',
      '19: exporters::otlphttp: tls applies to an https:// endpoint only (endpoint is http://127.0.0.1:4318)',
    ]);
  });
});

describe('service.telemetry.logs and extensions.api.auth', () => {
  it('reads level and encoding, and leaves the API token out when its variable is unset', () => {
    const [file] = writeConfigFiles({
      'otel-config.yaml': `${BASE}extensions:
  api: { auth: { bearer_token: "\${env:EVALON_API_TOKEN}" } }
service:
  extensions: [api]
  telemetry: { logs: { level: warn, encoding: json } }
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
    });
    const { config } = loadConfig([file!], { env: {} });
    expect(config.service.telemetry).toEqual({ logs: { level: 'warn', encoding: 'json' } });
    expect(config.extensions.api).toEqual({ host: '127.0.0.1', port: 4319 });
  });

  it('reports an unknown level and encoding with the allowed values', () => {
    const problems = problemsOf(`${BASE}service:
  telemetry:
    logs: { level: loud, encoding: xml }
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`);
    expect(format(problems)).toEqual([
      '8: service::telemetry::logs: level must be one of "debug", "info", "warn", "error" (got string "loud")',
      '8: service::telemetry::logs: encoding must be one of "console", "json" (got string "xml")',
    ]);
  });
});

it('never echoes a bearer token in a problem', () => {
  const [file] = writeConfigFiles({
    'otel-config.yaml': `${BASE}extensions:
  api: { auth: { bearer_token: [ "list-token-value" ] } }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
  });
  const error = (() => {
    try {
      loadConfig([file!], { env: {} });
    } catch (caught) {
      return caught as ConfigError;
    }
  })();
  expect(error?.message).toContain('extensions::api::auth: bearer_token must be a non-empty string (got a list)');
  expect(error?.message).not.toContain('list-token-value');
});
