/**
 * `register(options)`: one call that sets up the OpenTelemetry Node SDK to send traces to the
 * Evalon collector over OTLP/HTTP, and turns on the Anthropic SDK's content capture when asked.
 *
 * It never throws: bad options are warned about (through `diag`, which `OTEL_LOG_LEVEL` shows)
 * and fall back; a setup that fails leaves an inert handle. It is idempotent: a second call
 * returns the first handle until that one is shut down. Traces only: metrics and logs are left
 * to the application.
 */
import { diag, trace, type TracerProvider } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ConsoleSpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace';
import { createBoundedSpanProcessor, type ExportStats } from './bounded-span-processor.ts';
import { booleanEnv, configureContent } from './content-settings.ts';
import { installExitHooks } from './exit-hooks.ts';
import { resolveTelemetryOptions, type RegisterOptions, type ResolvedOptions } from './telemetry-options.ts';

/** The Anthropic SDK reads this when a client is constructed without an `openTelemetry` option. */
export const ANTHROPIC_CONTENT_MODE_ENV = 'ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE';

/** What `register()` returns. Every method is safe to call any number of times and never rejects. */
export interface Telemetry {
  /** True when this registration's SDK receives the process's spans. */
  readonly active: boolean;
  /** Where spans are sent (the OTLP traces URL), or undefined with a custom exporter or none. */
  readonly endpoint: string | undefined;
  readonly captureContent: boolean;
  /** Exports what is queued now. */
  forceFlush(): Promise<void>;
  /** Flushes (waiting at most `shutdownTimeoutMillis`) and stops; later spans are not exported. */
  shutdown(): Promise<void>;
  /** Export counters: queued, exported, failed and dropped spans. */
  stats(): ExportStats;
}

let current: Telemetry | undefined;

export function register(options: RegisterOptions = {}): Telemetry {
  if (current) {
    if (Object.keys(options ?? {}).length > 0)
      diag.warn('evalon: register() called again; keeping the first registration');
    return current;
  }
  try {
    current = start(options ?? {});
  } catch (error) {
    diag.error('evalon: could not set up telemetry; the agent runs without it', error);
    current = inert();
  }
  return current;
}

function start(options: RegisterOptions): Telemetry {
  if (booleanEnv(process.env.OTEL_SDK_DISABLED) === true) {
    diag.info('evalon: OTEL_SDK_DISABLED is set; telemetry is off');
    return inert();
  }
  const resolved = resolveTelemetryOptions(options, process.env);

  const exporter = options.exporter ?? createExporter(resolved, options.headers);
  const processor = exporter ? createBoundedSpanProcessor(exporter, resolved.queue) : undefined;
  const restoreAnthropic = resolved.captureContent ? enableAnthropicContent() : () => {};
  configureContent({ captureContent: resolved.captureContent, maxContentBytes: resolved.maxContentBytes });

  const before = delegateProvider();
  const sdk = new NodeSDK({
    ...(resolved.serviceName !== undefined ? { serviceName: resolved.serviceName } : {}),
    spanProcessors: processor ? [processor] : [],
    // Traces only: no metric readers or log processors from the OTEL_* defaults.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  // After the SDK's constructor, which installs the console logger OTEL_LOG_LEVEL asks for.
  for (const warning of resolved.warnings) diag.warn(`evalon: ${warning}`);
  sdk.start();
  const ours = delegateProvider();
  const active = processor !== undefined && ours !== before;
  if (processor && !active) {
    diag.warn(
      'evalon: another OpenTelemetry SDK is already registered in this process, so register() changed nothing; ' +
        'point that SDK at the collector instead (spans from invokeAgent go to it)',
    );
  }

  let removeExitHooks = () => {};
  let stopping: Promise<void> | undefined;
  const telemetry: Telemetry = {
    active,
    endpoint: options.exporter || resolved.tracesExporter !== 'otlp' ? undefined : resolved.tracesUrl,
    captureContent: resolved.captureContent,
    forceFlush: () => (stopping ? stopping : settle(processor?.forceFlush())),
    shutdown() {
      stopping ??= (async () => {
        removeExitHooks();
        await withTimeout(settle(sdk.shutdown()), resolved.shutdownTimeoutMillis);
        // Free the global provider for a later register(), unless another SDK replaced ours.
        if (active && delegateProvider() === ours) trace.disable();
        restoreAnthropic();
        configureContent(undefined);
        if (current === telemetry) current = undefined;
      })();
      return stopping;
    },
    stats: () => processor?.stats() ?? emptyStats(),
  };
  if (resolved.shutdownOnExit) removeExitHooks = installExitHooks(() => telemetry.shutdown());
  return telemetry;
}

function createExporter(
  resolved: ResolvedOptions,
  headers: Record<string, string> | undefined,
): SpanExporter | undefined {
  if (resolved.tracesExporter === 'none') return undefined;
  if (resolved.tracesExporter === 'console') return new ConsoleSpanExporter();
  const config = { url: resolved.tracesUrl, ...(headers ? { headers } : {}) };
  return resolved.protocol === 'http/json' ? new OtlpJsonTraceExporter(config) : new OtlpProtobufTraceExporter(config);
}

/**
 * Sets the variable the Anthropic SDK reads for its content mode, unless the application set it
 * already. Clients constructed before this, or with their own `openTelemetry` option, keep theirs.
 */
function enableAnthropicContent(): () => void {
  if (process.env[ANTHROPIC_CONTENT_MODE_ENV] !== undefined) return () => {};
  process.env[ANTHROPIC_CONTENT_MODE_ENV] = 'content';
  return () => {
    if (process.env[ANTHROPIC_CONTENT_MODE_ENV] === 'content') delete process.env[ANTHROPIC_CONTENT_MODE_ENV];
  };
}

/** The provider the global API delegates to now (a no-op provider when none is registered). */
function delegateProvider(): TracerProvider {
  const global = trace.getTracerProvider() as TracerProvider & { getDelegate?: () => TracerProvider };
  return global.getDelegate?.() ?? global;
}

function inert(): Telemetry {
  return {
    active: false,
    endpoint: undefined,
    captureContent: false,
    forceFlush: () => Promise.resolve(),
    shutdown() {
      if (current === this) current = undefined;
      return Promise.resolve();
    },
    stats: emptyStats,
  };
}

function emptyStats(): ExportStats {
  return { queuedSpans: 0, queuedBytes: 0, exportedSpans: 0, failedSpans: 0, droppedSpans: 0 };
}

/** Resolves when `work` settles; its failure is logged, never raised. */
async function settle(work: Promise<unknown> | undefined): Promise<void> {
  try {
    await work;
  } catch (error) {
    diag.debug('evalon: telemetry export did not complete', error);
  }
}

function withTimeout(work: Promise<void>, millis: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      diag.warn(`evalon: telemetry shutdown still exporting after ${millis} ms; giving up on the rest`);
      resolve();
    }, millis);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
