/**
 * Scores go out as OTLP doubles. `gen_ai.evaluation.score.value` is a double in the semantic
 * conventions, but the OpenTelemetry JS encoder writes every whole JavaScript number as `intValue`,
 * so a score of 1 would arrive as an integer and a backend would see two types for one attribute.
 *
 * The exporters here are the official OTLP/HTTP log and trace exporters put together exactly as
 * their classes do (`OTLPExporterBase` over the node HTTP delegate, with its retries, compression,
 * headers, timeout and TLS agent options), with the official JSON serializer wrapped: a batch
 * without a whole-number score is sent as the serializer wrote it (no extra work); one with such a
 * score is read back and that attribute's `intValue` becomes `doubleValue`. The SDK offers no hook
 * to type a number, hence this wrapper rather than a library.
 */
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
  type OTLPExporterNodeConfigBase,
} from '@opentelemetry/otlp-exporter-base/node-http';
import {
  type ISerializer,
  JsonLogsSerializer,
  JsonTraceSerializer,
  LogsExporterMetricsHelper,
  TraceExporterMetricsHelper,
} from '@opentelemetry/otlp-transformer';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { GEN_AI_EVALUATION_SCORE_VALUE } from '../../../src/model/attributes.ts';

/** Attributes that are doubles whatever their value. */
const DOUBLE_KEYS: ReadonlySet<string> = new Set([GEN_AI_EVALUATION_SCORE_VALUE]);
const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** The official OTLP/HTTP JSON log exporter, sending scores as doubles. */
export function createDoubleScoreLogExporter(config: OTLPExporterNodeConfigBase): LogRecordExporter {
  const serializer = doubleScores(JsonLogsSerializer, (records: ReadableLogRecord[]) =>
    records.some((record) => hasWholeScore(record.attributes)),
  );
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions(config, 'LOGS', 'v1/logs', JSON_HEADERS),
      serializer,
      'otlp_http_log_exporter',
      LogsExporterMetricsHelper,
      undefined,
    ),
  );
}

/** The official OTLP/HTTP JSON trace exporter, sending scores (on spans and span events) as doubles. */
export function createDoubleScoreTraceExporter(config: OTLPExporterNodeConfigBase): SpanExporter {
  const serializer = doubleScores(JsonTraceSerializer, (spans: ReadableSpan[]) =>
    spans.some(
      (span) => hasWholeScore(span.attributes) || span.events.some((event) => hasWholeScore(event.attributes)),
    ),
  );
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', JSON_HEADERS),
      serializer,
      'otlp_http_span_exporter',
      TraceExporterMetricsHelper,
      undefined,
    ),
  );
}

function hasWholeScore(attributes: Record<string, unknown> | undefined): boolean {
  if (!attributes) return false;
  for (const key of DOUBLE_KEYS) if (Number.isInteger(attributes[key])) return true;
  return false;
}

/** `base`, with `{ key, value: { intValue } }` of a double key rewritten as `doubleValue` when `needed`. */
export function doubleScores<Request, Response>(
  base: ISerializer<Request, Response>,
  needed: (request: Request) => boolean,
): ISerializer<Request, Response> {
  return {
    serializeRequest(request) {
      const bytes = base.serializeRequest(request);
      if (!bytes || !needed(request)) return bytes;
      const json = JSON.parse(new TextDecoder().decode(bytes), (_key, value: unknown) => {
        if (isKeyValue(value) && DOUBLE_KEYS.has(value.key) && 'intValue' in value.value)
          return { key: value.key, value: { doubleValue: Number(value.value.intValue) } };
        return value;
      });
      return new TextEncoder().encode(JSON.stringify(json));
    },
    deserializeResponse: (data) => base.deserializeResponse(data),
  };
}

function isKeyValue(value: unknown): value is { key: string; value: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { key?: unknown; value?: unknown };
  return typeof candidate.key === 'string' && typeof candidate.value === 'object' && candidate.value !== null;
}
