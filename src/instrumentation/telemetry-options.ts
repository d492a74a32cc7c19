/**
 * `register()` options, and how they combine with the standard OpenTelemetry environment
 * variables: an option given in code wins, then the variable, then the default. A value that is
 * not valid is reported as a warning and the next source is used: bad options never stop the agent.
 */
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { booleanEnv, CAPTURE_CONTENT_ENV, DEFAULT_MAX_CONTENT_BYTES } from './content-settings.ts';
import type { QueueLimits } from './bounded-span-processor.ts';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export type RegisterOptions = {
  /**
   * The collector's OTLP/HTTP endpoint: a base URL (`http://127.0.0.1:4318`, to which
   * `/v1/traces` is added) or the full traces URL. Default: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
   * as is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, else `http://localhost:4318/v1/traces`.
   */
  endpoint?: string;
  /** `service.name` of the spans. Default: `OTEL_SERVICE_NAME`, else the SDK's default. */
  serviceName?: string;
  /**
   * Record message content: the agent's input and output on its `invoke_agent` span, and (through
   * `ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content`) the Anthropic SDK's prompts, replies and
   * tool arguments/results. Default: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, else false.
   */
  captureContent?: boolean;
  /** Default: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`. */
  protocol?: OtlpProtocol;
  /** Extra export headers (e.g. `authorization`), on top of `OTEL_EXPORTER_OTLP_HEADERS`. */
  headers?: Record<string, string>;
  /** Spans waiting for export, at most. Default: `OTEL_BSP_MAX_QUEUE_SIZE`, else 2048. */
  maxQueueSize?: number;
  /** Estimated bytes of the spans waiting for export, at most. Default 64 MiB. */
  maxQueueBytes?: number;
  /** Delay between scheduled exports. Default: `OTEL_BSP_SCHEDULE_DELAY`, else 1000 ms. */
  scheduledDelayMillis?: number;
  /** Upper bound of one content attribute (input or output messages), in bytes. Default 256 KiB. */
  maxContentBytes?: number;
  /** Flush on `beforeExit`, SIGTERM and SIGINT. Default true. */
  shutdownOnExit?: boolean;
  /** How long `shutdown()` waits for the last export. Default 5000 ms. */
  shutdownTimeoutMillis?: number;
  /** Replaces the OTLP exporter (tests, or another destination). */
  exporter?: SpanExporter;
};

export interface ResolvedOptions {
  /** The traces URL, or undefined when `exporter` replaces OTLP. */
  tracesUrl: string | undefined;
  protocol: OtlpProtocol;
  serviceName: string | undefined;
  captureContent: boolean;
  maxContentBytes: number;
  queue: QueueLimits;
  shutdownOnExit: boolean;
  shutdownTimeoutMillis: number;
  /** `OTEL_TRACES_EXPORTER`: `otlp` (default), `console` or `none`. */
  tracesExporter: 'otlp' | 'console' | 'none';
  warnings: string[];
}

export const DEFAULT_ENDPOINT = 'http://localhost:4318';
const TRACES_PATH = '/v1/traces';
export const DEFAULT_MAX_QUEUE_SIZE = 2048;
export const DEFAULT_MAX_QUEUE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_EXPORT_BATCH_SIZE = 512;
/** Shorter than the SDK's 5 s: interactions reach the collector (and its evaluators) sooner. */
export const DEFAULT_SCHEDULED_DELAY_MILLIS = 1000;
export const DEFAULT_EXPORT_TIMEOUT_MILLIS = 30_000;
export const DEFAULT_SHUTDOWN_TIMEOUT_MILLIS = 5000;

type Env = Record<string, string | undefined>;

export function resolveTelemetryOptions(options: RegisterOptions, env: Env): ResolvedOptions {
  const warnings: string[] = [];
  const positive = (name: string, value: unknown, fallback: number): number => {
    if (value === undefined || value === '') return fallback;
    const number = typeof value === 'string' ? Number(value.trim()) : value;
    if (typeof number === 'number' && Number.isFinite(number) && number > 0) return Math.floor(number);
    warnings.push(`${name}: must be a positive number, got ${JSON.stringify(value)} (using ${fallback})`);
    return fallback;
  };
  const envNumber = (name: string, fallback: number) => positive(name, env[name], fallback);

  const maxQueueSize = positive(
    'maxQueueSize',
    options.maxQueueSize,
    envNumber('OTEL_BSP_MAX_QUEUE_SIZE', DEFAULT_MAX_QUEUE_SIZE),
  );
  const queue: QueueLimits = {
    maxQueueSize,
    maxQueueBytes: positive('maxQueueBytes', options.maxQueueBytes, DEFAULT_MAX_QUEUE_BYTES),
    maxExportBatchSize: Math.min(
      maxQueueSize,
      envNumber('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', DEFAULT_MAX_EXPORT_BATCH_SIZE),
    ),
    scheduledDelayMillis: positive(
      'scheduledDelayMillis',
      options.scheduledDelayMillis,
      envNumber('OTEL_BSP_SCHEDULE_DELAY', DEFAULT_SCHEDULED_DELAY_MILLIS),
    ),
    exportTimeoutMillis: envNumber('OTEL_BSP_EXPORT_TIMEOUT', DEFAULT_EXPORT_TIMEOUT_MILLIS),
  };

  let captureContent = options.captureContent;
  if (captureContent !== undefined && typeof captureContent !== 'boolean') {
    warnings.push(
      `captureContent: must be true or false, got ${JSON.stringify(captureContent)} (using the environment)`,
    );
    captureContent = undefined;
  }
  const envCapture = env[CAPTURE_CONTENT_ENV];
  if (
    captureContent === undefined &&
    envCapture !== undefined &&
    envCapture !== '' &&
    booleanEnv(envCapture) === undefined
  ) {
    warnings.push(
      `${CAPTURE_CONTENT_ENV}: must be true or false, got ${JSON.stringify(envCapture)} (content not captured)`,
    );
  }

  return {
    tracesUrl: options.exporter ? undefined : tracesUrlOf(options.endpoint, env, warnings),
    protocol: protocolOf(options.protocol, env, warnings),
    serviceName: nonEmpty(options.serviceName) ?? nonEmpty(env.OTEL_SERVICE_NAME),
    captureContent: captureContent ?? booleanEnv(envCapture) ?? false,
    maxContentBytes: positive('maxContentBytes', options.maxContentBytes, DEFAULT_MAX_CONTENT_BYTES),
    queue,
    shutdownOnExit: options.shutdownOnExit ?? true,
    shutdownTimeoutMillis: positive(
      'shutdownTimeoutMillis',
      options.shutdownTimeoutMillis,
      DEFAULT_SHUTDOWN_TIMEOUT_MILLIS,
    ),
    tracesExporter: tracesExporterOf(env, warnings),
    warnings,
  };
}

/** The traces URL from the option, else the standard variables, else the default. */
export function tracesUrlOf(endpoint: string | undefined, env: Env, warnings: string[] = []): string {
  const candidates: Array<[source: string, value: string | undefined, addPath: boolean]> = [
    ['endpoint', endpoint, true],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, false],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', env.OTEL_EXPORTER_OTLP_ENDPOINT, true],
  ];
  for (const [source, value, addPath] of candidates) {
    const trimmed = value?.trim();
    if (!trimmed) continue;
    try {
      const url = new URL(trimmed);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
      return addPath ? withTracesPath(url.href) : url.href;
    } catch {
      warnings.push(`${source}: not an http(s) URL: ${JSON.stringify(value)} (ignored)`);
    }
  }
  return DEFAULT_ENDPOINT + TRACES_PATH;
}

/** `base` with `/v1/traces` appended, unless it already ends with it (a full traces URL given as endpoint). */
function withTracesPath(base: string): string {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(TRACES_PATH)) return url.href;
  url.pathname = path + TRACES_PATH;
  return url.href;
}

function protocolOf(option: OtlpProtocol | undefined, env: Env, warnings: string[]): OtlpProtocol {
  const candidates: Array<[string, string | undefined]> = [
    ['protocol', option],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', env.OTEL_EXPORTER_OTLP_PROTOCOL],
  ];
  for (const [source, value] of candidates) {
    const protocol = value?.trim().toLowerCase();
    if (!protocol) continue;
    if (protocol === 'http/protobuf' || protocol === 'http/json') return protocol;
    // The collector's receiver speaks OTLP/HTTP only.
    warnings.push(`${source}: "${value}" is not supported, only http/protobuf and http/json (using http/protobuf)`);
    return 'http/protobuf';
  }
  return 'http/protobuf';
}

function tracesExporterOf(env: Env, warnings: string[]): 'otlp' | 'console' | 'none' {
  const names = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0 || names.includes('otlp')) return 'otlp';
  if (names.includes('none')) return 'none';
  if (names.includes('console')) return 'console';
  warnings.push(
    `OTEL_TRACES_EXPORTER: "${env.OTEL_TRACES_EXPORTER}" is not supported, only otlp, console and none (using otlp)`,
  );
  return 'otlp';
}

function nonEmpty(value: string | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
