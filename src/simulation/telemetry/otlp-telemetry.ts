/**
 * Exports agent-turn spans over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set. The provider is private to the simulation, so it
 * never replaces a global one the host application installed.
 *
 * The latest turn of each run is held back until the next one (or the run's end): only then is it
 * known whether it is the last, whose span ends the run's conversation. `onRunEnd` (the runner
 * calls it as each run ends) and `shutdown` emit what is held.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { SERVICE_NAME } from '../../model/attributes.ts';
import { SIMULATION_SCOPE } from '../../model/telemetry-names.ts';
import { recordAgentTurn, type AgentTurnSpanOptions, type SimulationAgentTurn } from './agent-turn-spans.ts';

export const DEFAULT_SERVICE_NAME = 'evalon-simulation';

export interface SimulationTelemetry {
  onAgentTurn(turn: SimulationAgentTurn): void;
  /** The run is over: its last turn is emitted, ending the run's conversation. */
  onRunEnd(runId: string): void;
  /** Exports what is buffered. */
  forceFlush(): Promise<void>;
  /** Flushes and stops; safe twice. */
  shutdown(): Promise<void>;
}

/** The traces endpoint from the environment, or undefined when export is off. */
export function tracesEndpoint(env: Record<string, string | undefined>): string | undefined {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (specific) return specific;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

export function createSimulationTelemetry(
  exporter: SpanExporter,
  options: AgentTurnSpanOptions & { serviceName?: string } = {},
): SimulationTelemetry {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [SERVICE_NAME]: options.serviceName ?? DEFAULT_SERVICE_NAME }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1000 })],
  });
  const tracer = provider.getTracer(SIMULATION_SCOPE);
  /** Each run's latest turn, not emitted yet. */
  const held = new Map<string, SimulationAgentTurn>();
  let stopped: Promise<void> | undefined;
  const emit = (turn: SimulationAgentTurn) => {
    try {
      recordAgentTurn(tracer, turn, options);
    } catch {
      // Telemetry never fails a run.
    }
  };
  const endRun = (runId: string) => {
    const last = held.get(runId);
    if (!last) return;
    held.delete(runId);
    emit({ ...last, endsConversation: true });
  };
  return {
    onAgentTurn(turn) {
      if (stopped) return;
      const previous = held.get(turn.runId);
      if (previous) emit(previous);
      held.set(turn.runId, turn);
    },
    onRunEnd(runId) {
      if (!stopped) endRun(runId);
    },
    forceFlush: () => provider.forceFlush().catch(() => undefined),
    shutdown() {
      // Runs still held are over: the process is done with them.
      if (!stopped) for (const runId of [...held.keys()]) endRun(runId);
      stopped ??= provider
        .forceFlush()
        .then(() => provider.shutdown())
        .catch(() => undefined);
      return stopped;
    },
  };
}

/** Telemetry to the OTLP endpoint of the environment, or undefined when none is set. */
export function otlpTelemetryFromEnv(
  env: Record<string, string | undefined>,
  options: AgentTurnSpanOptions = {},
): SimulationTelemetry | undefined {
  const url = tracesEndpoint(env);
  if (!url) return undefined;
  return createSimulationTelemetry(new OTLPTraceExporter({ url }), {
    ...options,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME,
  });
}
