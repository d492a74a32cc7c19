/**
 * The exporters wired into a real collector pipeline the way collector/service.ts is to wire
 * them (README.md of collector/exporter): OTLP receiver → (forwarding) → interactions processor →
 * evaluation processor over a SQLite ledger, built-in evaluators, the verdicts going back out.
 * An agent's spans go in over OTLP/protobuf; out come the forwarded spans, a verdict event and an
 * evaluation span per outcome (parented to the interaction span), and the metrics on a scrape.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context as otelContext, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../collector/config/index.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { startOtlpCapture, type OtlpCapture } from '../../helpers/otlp-capture.ts';
import { scrape, sampleValue } from '../../helpers/prometheus-text.ts';
import { startWired, type Wired } from '../../helpers/wired.ts';

let dir: string;
let downstream: OtlpCapture;
let wired: Wired;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evalon-wired-'));
  downstream = await startOtlpCapture();
  const file = join(dir, 'otel-config.yaml');
  writeFileSync(
    file,
    `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
processors:
  interactions: { settle: 100ms, decision_wait: 2s }
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
    evaluators:
      reply-length:
        control-id: QA-7
        min-length: 20
        agents: { support-agent: { trigger: interaction } }
      json-schema:
        agents: { support-agent: { trigger: interaction } }
exporters:
  otlphttp: { endpoint: ${downstream.url}, compression: none }
  prometheus: { endpoint: 127.0.0.1:0 }
service:
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation], exporters: [otlphttp], forward: true }
    logs: { exporters: [otlphttp] }
    metrics: { exporters: [prometheus] }
`,
  );
  wired = await startWired(loadConfig([file]).config);
});
afterAll(async () => {
  await wired?.shutdown();
  await downstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

function runAgent(url: string, reply: string): Promise<{ traceId: string; spanId: string }> {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: new ProtoExporter({ url }) })],
  });
  const tracer = provider.getTracer('agent');
  const agent = tracer.startSpan('invoke_agent support-agent', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'support-agent' },
  });
  tracer
    .startSpan(
      'chat claude',
      { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 10 } },
      trace.setSpan(otelContext.active(), agent),
    )
    .end();
  agent.setAttribute(
    'gen_ai.output.messages',
    JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: reply }] }]),
  );
  agent.end();
  const ids = { traceId: agent.spanContext().traceId, spanId: agent.spanContext().spanId };
  return provider.shutdown().then(() => ids);
}

describe('the exporters wired into the collector', () => {
  it(
    'forwards the agent spans, and sends a verdict event and an evaluation span per outcome, parented to the ' +
      'interaction span',
    async () => {
      const long = await runAgent(wired.otlpUrl, 'Your order has shipped and arrives on Tuesday.');
      const short = await runAgent(wired.otlpUrl, 'Shipped.');
      const outcomes = await pollUntil(
        async () => {
          await wired.telemetry.flush();
          return downstream.logs.length >= 4 &&
            downstream.spans.filter((span) => span.name.startsWith('evaluate ')).length >= 4
            ? downstream.logs
            : undefined;
        },
        { what: 'four verdict events and evaluation spans', timeoutMs: 20_000 },
      );

      // The agent's own spans went downstream unchanged.
      const forwarded = downstream.spans.filter((span) => !span.name.startsWith('evaluate '));
      expect(forwarded.map((span) => span.name).sort()).toEqual([
        'chat claude',
        'chat claude',
        'invoke_agent support-agent',
        'invoke_agent support-agent',
      ]);
      expect(forwarded.every((span) => span.origin.resource['service.name'] === 'support')).toBe(true);

      for (const interaction of [long, short]) {
        const events = outcomes.filter((log) => log.traceId === interaction.traceId);
        expect(events.map((log) => log.spanId)).toEqual([interaction.spanId, interaction.spanId]);
        expect(events.every((log) => log.eventName === 'gen_ai.evaluation.result')).toBe(true);
        const spans = downstream.spans.filter(
          (span) => span.name.startsWith('evaluate ') && span.traceId === interaction.traceId,
        );
        expect(spans.map((span) => span.parentSpanId)).toEqual([interaction.spanId, interaction.spanId]);
      }
      const byKey = (traceId: string, evaluator: string) =>
        outcomes.find((log) => log.traceId === traceId && log.attributes['gen_ai.evaluation.name'] === evaluator)!
          .attributes;
      expect(byKey(long.traceId, 'reply-length')).toMatchObject({
        'evalon.evaluation.outcome': 'pass',
        'gen_ai.evaluation.score.label': 'pass',
        'evalon.control.id': 'QA-7',
        length: 46,
      });
      expect(byKey(short.traceId, 'reply-length')).toMatchObject({
        'evalon.evaluation.outcome': 'fail',
        'gen_ai.evaluation.score.label': 'fail',
      });
      // json-schema without its required `schema` property: a failed evaluation.
      expect(byKey(short.traceId, 'json-schema')).toMatchObject({
        'evalon.evaluation.outcome': 'error',
        'error.type': expect.any(String),
      });
      const failedSpan = downstream.spans.find(
        (span) => span.name === 'evaluate json-schema' && span.traceId === short.traceId,
      )!;
      expect(failedSpan.status.code).toBe(2);

      const { samples } = await scrape(wired.telemetry.prometheusAddress()!);
      expect(
        sampleValue(samples, 'evalon_evaluations_total', {
          evaluator: 'reply-length',
          agent: 'support-agent',
          outcome: 'pass',
        }),
      ).toBe(1);
      expect(
        sampleValue(samples, 'evalon_evaluations_total', {
          evaluator: 'reply-length',
          agent: 'support-agent',
          outcome: 'fail',
        }),
      ).toBe(1);
      expect(
        sampleValue(samples, 'evalon_evaluations_total', {
          evaluator: 'json-schema',
          agent: 'support-agent',
          outcome: 'error',
        }),
      ).toBe(2);
      expect(sampleValue(samples, 'evalon_interactions_total', { agent: 'support-agent', failed: 'false' })).toBe(2);
      expect(sampleValue(samples, 'evalon_spans_received_total')).toBe(4);
      expect(sampleValue(samples, 'evalon_evaluation_lag_count', { evaluator: 'reply-length', outcome: 'pass' })).toBe(
        1,
      );
      expect(sampleValue(samples, 'evalon_evaluation_queue_size')).toBe(0);
      expect(sampleValue(samples, 'evalon_pending_traces')).toBe(0);
    },
  );
});
