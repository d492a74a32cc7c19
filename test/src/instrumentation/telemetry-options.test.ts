import { describe, expect, it } from 'vitest';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import {
  DEFAULT_MAX_QUEUE_BYTES,
  DEFAULT_MAX_QUEUE_SIZE,
  resolveTelemetryOptions,
  tracesUrlOf,
} from '../../../src/instrumentation/telemetry-options.ts';

describe('register options and the standard environment variables', () => {
  it('uses the OTel defaults with nothing set', () => {
    const resolved = resolveTelemetryOptions({}, {});
    expect(resolved).toMatchObject({
      tracesUrl: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: undefined,
      captureContent: false,
      shutdownOnExit: true,
      tracesExporter: 'otlp',
      warnings: [],
    });
    expect(resolved.queue).toMatchObject({
      maxQueueSize: DEFAULT_MAX_QUEUE_SIZE,
      maxQueueBytes: DEFAULT_MAX_QUEUE_BYTES,
      maxExportBatchSize: 512,
    });
  });

  it(
    'builds the traces URL: option, then OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, then ' +
      'OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces',
    () => {
      expect(tracesUrlOf('http://127.0.0.1:4318', {})).toBe('http://127.0.0.1:4318/v1/traces');
      expect(tracesUrlOf('http://127.0.0.1:4318/', {})).toBe('http://127.0.0.1:4318/v1/traces');
      expect(tracesUrlOf('http://127.0.0.1:4318/v1/traces', {})).toBe('http://127.0.0.1:4318/v1/traces');
      expect(tracesUrlOf('https://gw.example/evalon', {})).toBe('https://gw.example/evalon/v1/traces');
      expect(
        tracesUrlOf(undefined, {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://h:1/custom',
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:2',
        }),
      ).toBe('http://h:1/custom');
      expect(tracesUrlOf(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:2' })).toBe(
        'http://other:2/v1/traces',
      );
      expect(tracesUrlOf('http://code:3', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:2' })).toBe(
        'http://code:3/v1/traces',
      );
    },
  );

  it('warns about an endpoint that is not an http(s) URL and falls back', () => {
    const warnings: string[] = [];
    expect(tracesUrlOf('not a url', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' }, warnings)).toBe(
      'http://env:4318/v1/traces',
    );
    expect(tracesUrlOf('ftp://x', {}, warnings)).toBe('http://localhost:4318/v1/traces');
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^endpoint: not an http\(s\) URL/);
  });

  it('reads service name, protocol, content capture and queue limits from the environment, options first', () => {
    const env = {
      OTEL_SERVICE_NAME: 'env-service',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_SCHEDULE_DELAY: '250',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1000',
    };
    const fromEnv = resolveTelemetryOptions({}, env);
    expect(fromEnv).toMatchObject({ serviceName: 'env-service', protocol: 'http/json', captureContent: true });
    expect(fromEnv.queue).toMatchObject({ maxQueueSize: 100, scheduledDelayMillis: 250, maxExportBatchSize: 100 });
    const fromCode = resolveTelemetryOptions(
      { serviceName: 'code', protocol: 'http/protobuf', captureContent: false, maxQueueSize: 7 },
      env,
    );
    expect(fromCode).toMatchObject({ serviceName: 'code', protocol: 'http/protobuf', captureContent: false });
    expect(fromCode.queue.maxQueueSize).toBe(7);
    expect(resolveTelemetryOptions({}, { ...env, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).protocol).toBe(
      'http/protobuf',
    );
  });

  it('warns and falls back on values that are not valid, never throwing', () => {
    const resolved = resolveTelemetryOptions(
      { maxQueueSize: -1, captureContent: 'yes' as unknown as boolean, maxContentBytes: Number.NaN },
      {
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_BSP_SCHEDULE_DELAY: 'soon',
        OTEL_TRACES_EXPORTER: 'zipkin',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'maybe',
      },
    );
    expect(resolved.protocol).toBe('http/protobuf');
    expect(resolved.queue.maxQueueSize).toBe(DEFAULT_MAX_QUEUE_SIZE);
    expect(resolved.queue.scheduledDelayMillis).toBe(1000);
    expect(resolved.captureContent).toBe(false);
    expect(resolved.tracesExporter).toBe('otlp');
    expect(resolved.warnings.join('\n')).toMatch(/maxQueueSize/);
    expect(resolved.warnings.join('\n')).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported/);
    expect(resolved.warnings.join('\n')).toMatch(/OTEL_BSP_SCHEDULE_DELAY/);
    expect(resolved.warnings.join('\n')).toMatch(/captureContent/);
    expect(resolved.warnings.join('\n')).toMatch(/OTEL_TRACES_EXPORTER/);
    expect(resolved.warnings.join('\n')).toMatch(/maxContentBytes/);
  });

  it('honours OTEL_TRACES_EXPORTER none and console, and has no URL with a custom exporter', () => {
    expect(resolveTelemetryOptions({}, { OTEL_TRACES_EXPORTER: 'none' }).tracesExporter).toBe('none');
    expect(resolveTelemetryOptions({}, { OTEL_TRACES_EXPORTER: 'console' }).tracesExporter).toBe('console');
    expect(resolveTelemetryOptions({ exporter: new InMemorySpanExporter() }, {}).tracesUrl).toBeUndefined();
  });
});
