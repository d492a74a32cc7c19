/**
 * Judge calls in the trace, through real clients: an agent's spans go into a wired collector over
 * OTLP; the built-in `llm-judge` calls the scripted model through the real Anthropic SDK
 * (ANTHROPIC_BASE_URL); what the collector exports is captured by a local OTLP receiver. Each
 * model call comes out as a `chat <model>` span in the interaction's trace, child of the exported
 * `evaluate llm-judge` span; a failed judge still reports the tokens it spent; the judge's
 * spans, sent back to the collector, are recorded without triggering any evaluation; and two
 * collectors in one process each export their own judges' calls.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context as otelContext, trace } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../collector/config/index.ts';
import { evaluationSpanId } from '../../../../collector/telemetry/identity.ts';
import { createReadableSpanAdapter } from '../../../../collector/exporter/otlp/readable-span.ts';
import type { SpanData } from '../../../../collector/model/span.ts';
import type { EvaluationRecord } from '../../../../src/model/records.ts';
import { createScriptedModel, type ScriptedModel, type ScriptedReply } from '../../../../src/testing/scripted-model.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { startOtlpCapture, type OtlpCapture } from '../../../helpers/otlp-capture.ts';
import { scrape, sampleValue } from '../../../helpers/prometheus-text.ts';
import { startWired, type Wired } from '../../../helpers/wired.ts';

const JUDGE_MODEL = 'claude-trace-judge';
const OMITTED_CHARS = 'evalon.judge.transcript.omitted_chars';
const ENV_KEYS = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'EVALON_MODEL'] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));

let dir: string;
let downstream: OtlpCapture;
let scripted: ScriptedModel;
let wired: Wired;

/** A collector judging support-agent interactions with llm-judge, exporting to `exportTo`. */
function collectorConfig(name: string, exportTo: OtlpCapture) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
processors:
  interactions: { settle: 100ms, decision_wait: 2s }
  evaluation:
    ledger: { sqlite: { path: ${join(dir, `${name}.db`)} } }
    evaluators:
      llm-judge:
        rubric: The reply tells the customer where the order is.
        max_input_tokens: 2000
        agents: { support-agent: { trigger: interaction } }
exporters:
  otlphttp: { endpoint: ${exportTo.url}, compression: none }
  prometheus: { endpoint: 127.0.0.1:0 }
service:
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation], exporters: [otlphttp] }
    logs: { exporters: [otlphttp] }
    metrics: { exporters: [prometheus] }
`,
  );
  return loadConfig([file]).config;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evalon-judge-spans-'));
  downstream = await startOtlpCapture();
  scripted = await createScriptedModel();
  process.env.ANTHROPIC_BASE_URL = scripted.baseURL;
  process.env.ANTHROPIC_API_KEY = 'judge-spans-key';
  process.env.EVALON_MODEL = JUDGE_MODEL;
  wired = await startWired(collectorConfig('ledger', downstream));
});

afterAll(async () => {
  await wired?.shutdown();
  await downstream?.close();
  await scripted?.close();
  rmSync(dir, { recursive: true, force: true });
  for (const key of ENV_KEYS) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
});

/** One support-agent interaction, sent over OTLP/protobuf to `to`; resolves with its ids. */
async function runAgent(
  reply: string,
  to: Wired = wired,
  toolResult?: string,
): Promise<{ traceId: string; spanId: string; interactionId: string }> {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: new ProtoExporter({ url: to.otlpUrl }) })],
  });
  const tracer = provider.getTracer('agent');
  const agent = tracer.startSpan('invoke_agent support-agent', {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'Where is my order A-17?' }] },
      ]),
    },
  });
  tracer
    .startSpan(
      'chat claude',
      { attributes: { 'gen_ai.operation.name': 'chat' } },
      trace.setSpan(otelContext.active(), agent),
    )
    .end();
  if (toolResult !== undefined) {
    const attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'fetch_page',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.call.arguments': JSON.stringify({ url: 'https://example.com/orders' }),
      'gen_ai.tool.call.result': toolResult,
    };
    tracer.startSpan('execute_tool fetch_page', { attributes }, trace.setSpan(otelContext.active(), agent)).end();
  }
  agent.setAttribute(
    'gen_ai.output.messages',
    JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: reply }] }]),
  );
  agent.end();
  const { traceId, spanId } = agent.spanContext();
  await provider.shutdown();
  return { traceId, spanId, interactionId: `${traceId}-${spanId}` };
}

/** The recorded llm-judge outcome, then (after a flush) its evaluate span and `count` judge call spans. */
async function judged(
  interaction: { traceId: string; interactionId: string },
  count: number,
  collector: { wired: Wired; downstream: OtlpCapture } = { wired, downstream },
) {
  const record = await pollUntil(
    async () =>
      (await collector.wired.store.getEvaluations(interaction.interactionId)).find(
        (r) => r.evaluatorId === 'llm-judge',
      ),
    {
      what: 'the llm-judge outcome',
      timeoutMs: 20_000,
    },
  );
  const spans = await pollUntil(
    async () => {
      await collector.wired.telemetry.flush();
      const inTrace = collector.downstream.spans.filter((span) => span.traceId === interaction.traceId);
      const evaluate = inTrace.find((span) => span.name === 'evaluate llm-judge');
      const calls = inTrace.filter((span) => span.name.startsWith('chat '));
      return evaluate && calls.length >= count ? { evaluate, calls } : undefined;
    },
    { what: `the evaluate span and ${count} judge call span(s)`, timeoutMs: 20_000 },
  );
  const event = collector.downstream.logs.find(
    (log) => log.traceId === interaction.traceId && log.attributes['gen_ai.evaluation.name'] === 'llm-judge',
  );
  return { record, event, ...spans };
}

const verdict = (usage: { input_tokens: number; output_tokens: number }): ScriptedReply => ({
  toolUse: [
    {
      name: 'record_verdict',
      input: { passed: true, score: 0.9, label: 'good', explanation: 'Says where the order is.' },
    },
  ],
  usage,
});

/** Token metric samples of llm-judge, by token type. */
async function judgeTokens(type: 'input' | 'output'): Promise<{ sum?: number; count?: number }> {
  const { samples } = await scrape(wired.telemetry.prometheusAddress()!);
  const labels = { evaluator: 'llm-judge', gen_ai_token_type: type, gen_ai_request_model: JUDGE_MODEL };
  return {
    sum: sampleValue(samples, 'gen_ai_client_token_usage_sum', labels),
    count: sampleValue(samples, 'gen_ai_client_token_usage_count', labels),
  };
}

describe('evaluationSpanId', () => {
  it('is the first 8 bytes of SHA-256 of the evaluation id, as 16 hex, and the same every time', () => {
    const id = evaluationSpanId('eval-123');
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(id).toBe(createHash('sha256').update('eval-123').digest('hex').slice(0, 16));
    expect(evaluationSpanId('eval-123')).toBe(id);
    expect(evaluationSpanId('eval-124')).not.toBe(id);
  });
});

describe('judge calls in the trace', () => {
  let first: Awaited<ReturnType<typeof judged>>;
  let interaction: Awaited<ReturnType<typeof runAgent>>;

  it(
    'exports each model call of llm-judge as a chat span under the evaluate span, a 529 retry showing as an ' + 'event',
    async () => {
      scripted.enqueue({ errorStatus: 529 }, verdict({ input_tokens: 321, output_tokens: 42 }));
      interaction = await runAgent('Order A-17 has shipped and arrives Friday.');
      first = await judged(interaction, 1);
      const { record, evaluate, calls } = first;
      expect(record.outcome.type).toBe('verdict');
      expect(scripted.requests).toHaveLength(2);

      // The evaluate span: child of the interaction span, its id derived from the evaluation id.
      expect(evaluate.parentSpanId).toBe(interaction.spanId);
      expect(evaluate.spanId).toBe(evaluationSpanId(record.evaluationId));
      expect(Math.round(evaluate.startTimeUnixNano / 1e6)).toBe(Date.parse(record.startedAt));

      // One span for the call, its two HTTP attempts visible: the 529 as an event, attempts = 2.
      expect(calls).toHaveLength(1);
      const [call] = calls;
      expect(call.name).toBe(`chat ${JUDGE_MODEL}`);
      expect(call.traceId).toBe(interaction.traceId);
      expect(call.parentSpanId).toBe(evaluate.spanId);
      expect(call.kind).toBe(3); // CLIENT
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': JUDGE_MODEL,
        'gen_ai.response.model': JUDGE_MODEL,
        'gen_ai.usage.input_tokens': 321,
        'gen_ai.usage.output_tokens': 42,
        'gen_ai.response.finish_reasons': ['tool_use'],
        'evalon.evaluation.id': record.evaluationId,
        'evalon.evaluator.id': 'llm-judge',
        'evalon.model.attempts': 2,
      });
      expect(call.status.code).not.toBe(2);
      expect(call.events.map((event) => event.name)).toEqual(['evalon.model.retry']);
      expect(call.events[0].attributes).toMatchObject({
        'evalon.model.attempt': 1,
        'http.response.status_code': 529,
        'error.type': 'overloaded_error',
      });
      // No message content by default: neither the prompt nor the reply travel.
      for (const key of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions'])
        expect(call.attributes[key]).toBeUndefined();
      expect(JSON.stringify(call.attributes)).not.toContain('A-17');

      expect(await judgeTokens('input')).toEqual({ sum: 321, count: 1 });
    },
  );

  it(
    'records a judge that fails on an unreadable reply twice as failed, with the tokens it spent; the token ' +
      'metric counts them',
    async () => {
      const unreadable: ScriptedReply = {
        text: '{"passed": true, "score": 0.9, "explanation": ',
        usage: { input_tokens: 50, output_tokens: 7 },
      };
      scripted.enqueue(unreadable, unreadable);
      const failedInteraction = await runAgent('Order A-17 is on its way.');
      const { record, event, evaluate, calls } = await judged(failedInteraction, 2);

      expect(record.outcome).toMatchObject({
        type: 'failed',
        error: expect.stringMatching(/unreadable after 2 attempt\(s\)/),
        attributes: {
          'gen_ai.usage.input_tokens': 100,
          'gen_ai.usage.output_tokens': 14,
          'gen_ai.request.model': JUDGE_MODEL,
          'gen_ai.provider.name': 'anthropic',
          judge_calls: 2,
          [OMITTED_CHARS]: 0,
        },
      });
      // The event and the span carry the usage too.
      expect(event?.attributes).toMatchObject({
        'evalon.evaluation.outcome': 'error',
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 14,
        [OMITTED_CHARS]: 0,
      });
      expect(evaluate.status.code).toBe(2);
      expect(evaluate.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 100 });
      // Both calls answered (the replies were unreadable, not the calls): two spans, no error status.
      expect(calls.map((call) => call.parentSpanId)).toEqual([evaluate.spanId, evaluate.spanId]);
      expect(calls.map((call) => call.attributes['gen_ai.usage.input_tokens'])).toEqual([50, 50]);
      expect(calls.every((call) => call.status.code !== 2)).toBe(true);

      // First test's 321 plus the failed judge's 100, in three records (one per outcome).
      expect(await judgeTokens('input')).toEqual({ sum: 421, count: 2 });
      expect((await judgeTokens('output')).sum).toBe(56);
    },
  );

  it(
    'carries the characters of the transcript the judge did not read on the record, the verdict event and the ' +
      'evaluate span',
    async () => {
      scripted.enqueue(verdict({ input_tokens: 30, output_tokens: 3 }));
      // A tool result far beyond the evaluator's max_input_tokens (2,000 tokens, ~6,000 characters).
      const long = await runAgent(
        'Order A-17 has shipped.',
        wired,
        `<html>${'<p>Order A-17: shipped.</p>'.repeat(1_000)}`,
      );
      const { record, event, evaluate } = await judged(long, 1);
      const omitted =
        record.outcome.type === 'verdict' ? record.outcome.evaluation.attributes[OMITTED_CHARS] : undefined;
      expect(omitted).toBeGreaterThan(20_000);
      expect(event?.attributes[OMITTED_CHARS]).toBe(omitted);
      expect(evaluate.attributes[OMITTED_CHARS]).toBe(omitted);
      // The first judged interaction was read whole: 0, on all three as well.
      expect(first.record.outcome.type === 'verdict' && first.record.outcome.evaluation.attributes[OMITTED_CHARS]).toBe(
        0,
      );
      expect(first.event?.attributes[OMITTED_CHARS]).toBe(0);
      expect(first.evaluate.attributes[OMITTED_CHARS]).toBe(0);
    },
  );

  it(
    'records the judge’s spans when they come back to ' + 'the collector, and triggers no evaluation with them',
    async () => {
      const judgeSpans: SpanData[] = downstream.spans.filter((span) => span.traceId === interaction.traceId);
      expect(judgeSpans.map((span) => span.name).sort()).toEqual([`chat ${JUDGE_MODEL}`, 'evaluate llm-judge']);
      expect(judgeSpans.every((span) => span.attributes['evalon.evaluation.id'] === first.record.evaluationId)).toBe(
        true,
      );

      const before = { ...wired.processor.stats };
      const evaluationsBefore = wired.evaluation.runtime.stats.started;
      const exporter = new JsonExporter({ url: wired.otlpUrl });
      const adapt = createReadableSpanAdapter();
      const result = await new Promise<{ code: ExportResultCode }>((resolve) =>
        exporter.export(judgeSpans.map(adapt), resolve),
      );
      expect(result.code).toBe(ExportResultCode.SUCCESS);
      await exporter.shutdown();

      // Acknowledged means stored. In the order they were exported (the call before its evaluate
      // span), a span may wait for its parent until decision_wait; none of them is an invocation, so
      // once nothing is pending no interaction was recorded and no evaluation started.
      expect(wired.processor.stats.spansReceived).toBe(before.spansReceived + judgeSpans.length);
      await pollUntil(() => (wired.processor.assembler.pendingTraces() === 0 ? true : undefined), {
        what: 'nothing pending',
        timeoutMs: 20_000,
      });
      await wired.evaluation.idle();
      expect(wired.processor.stats.interactions).toBe(before.interactions);
      expect(wired.evaluation.runtime.stats.started).toBe(evaluationsBefore);
      expect(await wired.store.countQueuedEvaluations()).toBe(0);
      const records: EvaluationRecord[] = await wired.store.getEvaluations(interaction.interactionId);
      expect(records).toHaveLength(1);
    },
  );
});

describe('two collectors in one process', () => {
  it('each exports the calls of its own judges, under its own evaluate spans, and none of the other’s', async () => {
    const otherDownstream = await startOtlpCapture();
    const other = await startWired(collectorConfig('other', otherDownstream));
    try {
      scripted.enqueue(
        verdict({ input_tokens: 11, output_tokens: 1 }),
        verdict({ input_tokens: 22, output_tokens: 2 }),
      );
      const mine = await runAgent('Order A-17 has shipped.', wired);
      const theirs = await runAgent('Order A-17 arrives Friday.', other);
      const mineJudged = await judged(mine, 1);
      const theirsJudged = await judged(theirs, 1, { wired: other, downstream: otherDownstream });

      // Each judge call span went out through the collector that ran the judge, under its evaluate span.
      expect(mineJudged.calls.map((call) => call.parentSpanId)).toEqual([mineJudged.evaluate.spanId]);
      expect(mineJudged.calls[0].attributes['evalon.evaluation.id']).toBe(mineJudged.record.evaluationId);
      expect(theirsJudged.calls.map((call) => call.parentSpanId)).toEqual([theirsJudged.evaluate.spanId]);
      expect(theirsJudged.calls[0].attributes['evalon.evaluation.id']).toBe(theirsJudged.record.evaluationId);
      // And never through the other one.
      await Promise.all([wired.telemetry.flush(), other.telemetry.flush()]);
      expect(downstream.spans.filter((span) => span.traceId === theirs.traceId)).toEqual([]);
      expect(otherDownstream.spans.filter((span) => span.traceId === mine.traceId)).toEqual([]);
    } finally {
      await other.shutdown();
      await otherDownstream.close();
    }
  });
});
