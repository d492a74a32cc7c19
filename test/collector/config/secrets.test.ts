/** The secrets a configuration holds, which the log scrubs from every line. */
import { expect, it } from 'vitest';
import { loadConfig } from '../../../collector/config/index.ts';
import { secretsOf } from '../../../collector/config/secrets.ts';
import { writeConfigFiles } from '../../helpers/config-files.ts';

it('lists the bearer tokens, the credentials among exporter headers and the PostgreSQL password', () => {
  const [file] = writeConfigFiles({
    'otel-config.yaml': `receivers:
  otlp:
    protocols:
      http: { auth: { bearer_token: http-token-1 } }
      grpc: { auth: { bearer_token: grpc-token-2 } }
processors:
  interactions:
  evaluation:
    ledger: { postgres: { url: "postgres://evalon:p%40ss-word-3@db:5432/evalon?sslpassword=ssl-pass-4" } }
exporters:
  otlphttp/a: { endpoint: "http://a:4318", headers: { authorization: "Bearer header-token-5", x-tenant: acme } }
  otlphttp/b: { endpoint: "http://b:4318", headers: { x-api-key: api-key-6 } }
extensions:
  api: { auth: { bearer_token: api-token-7 } }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation], exporters: [otlphttp/a, otlphttp/b] }
`,
  });
  const secrets = secretsOf(loadConfig([file!], { env: {} }).config);
  expect(new Set(secrets)).toEqual(
    new Set([
      'http-token-1',
      'grpc-token-2',
      'api-token-7',
      'Bearer header-token-5',
      'header-token-5',
      'api-key-6',
      'p%40ss-word-3',
      'p@ss-word-3',
      'ssl-pass-4',
    ]),
  );
  // Header values that are not credentials stay readable in the log.
  expect(secrets).not.toContain('acme');
});
