/**
 * Evaluator entries in production, through the real collector: two `llm-judge/…` entries (one a
 * shadow with `version: "2"`) judged by the real Anthropic SDK against the scripted model, spans
 * in through the official OTel exporter, verdicts read back from the API, the log events from a
 * local OTLP receiver and the metrics from a Prometheus scrape. The entry in service has an entry
 * budget, the shadow a binding budget: each stops its new evaluations once spent (counted in the
 * metric and the stats, never recorded), stays spent across a restart, and lets evaluations start
 * again once its window has slid by (the collector's clock moved an hour on).
 */
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../collector/cli/main.ts';
import type { BudgetStats } from '../../collector/processor/evaluation/evaluation-budgets.ts';
import type { EvaluationRecord } from '../../src/model/records.ts';
import { createScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model.ts';
import { startTestCollector, type TestCollector } from '../helpers/collector.ts';
import { startOtlpCapture, type OtlpCapture } from '../helpers/otlp-capture.ts';
import { pollUntil } from '../helpers/poll.ts';
import { scrape, select } from '../helpers/prometheus-text.ts';

const HOUR = 3_600_000;
/** Each judge call spends 300 tokens: two calls spend a 500-token budget. */
const USAGE = { input_tokens: 250, output_tokens: 50 };

const yaml = (dir: string, otlp: string) => `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
processors:
  interactions: { settle: 100ms, decision_wait: 3s }
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
    evaluators:
      llm-judge/strict:
        rubric: The reply answers the question.
        budget: { tokens: 500, per: 1h }
        agents:
          support-agent: {}
          billing-agent: {}
      llm-judge/candidate:
        shadow: true
        version: "2"
        rubric: The reply answers the question, politely.
        agents:
          support-agent: { budget: { tokens: 500, per: 1h } }
          billing-agent: {}
exporters:
  otlphttp: { endpoint: ${otlp}, compression: none }
  prometheus: { endpoint: 127.0.0.1:0 }
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
    logs: { exporters: [otlphttp] }
    metrics: { exporters: [prometheus] }
`;

const ENV_KEYS = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'EVALON_MODEL'] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
const dir = mkdtempSync(join(tmpdir(), 'evalon-judge-entries-'));
let offset = 0;
const clock = () => Date.now() + offset;
let scripted: ScriptedModel;
let capture: OtlpCapture;
let collector: TestCollector;
let provider: TracerProvider;

async function start(): Promise<void> {
  collector = await startTestCollector({ dir, clock, yaml: (at) => yaml(at, capture.url) });
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'shop' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: collector.otlpUrl }) })],
  });
}

async function stop(): Promise<void> {
  await provider?.shutdown();
  await collector?.close();
}

beforeAll(async () => {
  scripted = await createScriptedModel();
  scripted.respondWith(() => ({
    toolUse: [{ name: 'record_verdict', input: { passed: true, score: 1, explanation: 'Answers it.' } }],
    usage: USAGE,
  }));
  process.env.ANTHROPIC_BASE_URL = scripted.baseURL;
  process.env.ANTHROPIC_API_KEY = 'entries-key';
  process.env.EVALON_MODEL = 'claude-entries-judge';
  capture = await startOtlpCapture();
  await start();
});

afterAll(async () => {
  await stop();
  await capture?.close();
  await scripted?.close();
  rmSync(dir, { recursive: true, force: true });
  for (const key of ENV_KEYS) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
});

async function sendInteraction(agentId: string): Promise<string> {
  const tracer = provider.getTracer('judge-entries');
  const agent = tracer.startSpan(`invoke_agent ${agentId}`, {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': agentId,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Where is A-17?' }] }]),
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'text', content: 'It arrives Friday.' }] },
      ]),
    },
  });
  trace.setSpan(context.active(), agent);
  agent.end();
  await provider.forceFlush();
  return `${agent.spanContext().traceId}-${agent.spanContext().spanId}`;
}

interface Stats {
  evaluation: { recorded: number; skipped: number; budgets: BudgetStats[] };
}

async function stats(): Promise<Stats> {
  return (await (await fetch(`${collector.apiUrl}/api/v1/stats`)).json()) as Stats;
}

/** Sends an interaction of `agentId` and waits until its evaluations are recorded or skipped. */
async function evaluate(agentId: string, expected: { recorded: number; skipped: number }): Promise<string> {
  const before = (await stats()).evaluation;
  const id = await sendInteraction(agentId);
  await pollUntil(
    async () => {
      const now = (await stats()).evaluation;
      return now.recorded - before.recorded === expected.recorded && now.skipped - before.skipped === expected.skipped
        ? now
        : undefined;
    },
    { timeoutMs: 20_000, what: `${expected.recorded} recorded and ${expected.skipped} skipped for ${agentId}` },
  );
  return id;
}

async function evaluationsOf(interactionId: string): Promise<Record<string, EvaluationRecord>> {
  const response = await fetch(`${collector.apiUrl}/api/v1/interactions/${interactionId}/evaluations`);
  const { evaluations } = (await response.json()) as { evaluations: EvaluationRecord[] };
  return Object.fromEntries(evaluations.map((record) => [record.evaluatorId, record]));
}

it('records both entries with ids, versions, shadow flags and provenance, in the ledger and in telemetry', async () => {
  const first = await evaluate('support-agent', { recorded: 2, skipped: 0 });
  const records = await evaluationsOf(first);
  expect(Object.keys(records).sort()).toEqual(['llm-judge/candidate', 'llm-judge/strict']);
  const strict = records['llm-judge/strict'];
  const candidate = records['llm-judge/candidate'];
  expect(strict).toMatchObject({ evaluatorVersion: '1', agentId: 'support-agent' });
  expect(strict.shadow).toBeUndefined();
  expect(candidate).toMatchObject({ evaluatorVersion: '2', shadow: true });
  for (const record of [strict, candidate])
    expect(record.provenance).toEqual({
      evaluatorType: 'llm_judge',
      model: 'claude-entries-judge',
      configHash: expect.stringMatching(/^[0-9a-f]{16}$/),
      binding: 'agents::support-agent',
    });
  // Another rubric: another hash.
  expect(candidate.provenance!.configHash).not.toBe(strict.provenance!.configHash);

  // Stopping flushes the verdict events.
  await stop();
  const logs = await pollUntil(
    async () => {
      const found = capture.logs.filter((log) => log.attributes['evalon.interaction.id'] === first);
      return found.length === 2 ? found : undefined;
    },
    { timeoutMs: 10_000, what: 'the two verdict events' },
  );
  const event = (name: string) => logs.find((log) => log.attributes['gen_ai.evaluation.name'] === name)!.attributes;
  expect(event('llm-judge/candidate')).toMatchObject({
    'gen_ai.evaluation.evaluator.version': '2',
    'gen_ai.evaluation.evaluator.type': 'llm_judge',
    'gen_ai.request.model': 'claude-entries-judge',
    'evalon.evaluation.config_hash': candidate.provenance!.configHash,
    'evalon.evaluation.shadow': true,
    'gen_ai.evaluation.score.value': 1,
  });
  expect(event('llm-judge/strict')).toMatchObject({
    'gen_ai.evaluation.evaluator.version': '1',
    'evalon.evaluation.config_hash': strict.provenance!.configHash,
  });
  expect(event('llm-judge/strict')['evalon.evaluation.shadow']).toBeUndefined();
  await start();
});

// A spent entry or binding budget: new evaluations stop and are counted, across a restart, until the window slides.
it('stops new evaluations of a spent budget, counts the skips, keeps them across a restart, starts again', async () => {
  // 300 tokens each so far (the first test). The entry's budget spans its two bindings.
  await evaluate('billing-agent', { recorded: 2, skipped: 0 }); // strict 600 of 500: spent
  await evaluate('support-agent', { recorded: 1, skipped: 1 }); // candidate's support binding 600 of 500: spent
  await evaluate('billing-agent', { recorded: 1, skipped: 1 }); // candidate's billing binding has no budget
  const last = await evaluate('support-agent', { recorded: 0, skipped: 2 });
  expect(await evaluationsOf(last)).toEqual({});

  const { samples } = await scrape(collector.collector.prometheusAddress!);
  const skipped = (evaluator: string, agent: string) =>
    select(samples, 'evalon_evaluations_skipped_total', { evaluator, agent, reason: 'budget' })[0]?.value;
  expect(skipped('llm-judge/strict', 'support-agent')).toBe(2);
  expect(skipped('llm-judge/strict', 'billing-agent')).toBe(1);
  expect(skipped('llm-judge/candidate', 'support-agent')).toBe(1);
  expect(select(samples, 'evalon_evaluations_total', { evaluator: 'llm-judge/candidate', shadow: 'true' })).not.toEqual(
    [],
  );
  expect(select(samples, 'evalon_evaluations_total', { evaluator: 'llm-judge/strict', shadow: 'false' })).not.toEqual(
    [],
  );
  expect((await stats()).evaluation.budgets).toEqual([
    { evaluator: 'llm-judge/strict', spent: 600, limit: 500, window: '1h', skipped: 3 },
    {
      evaluator: 'llm-judge/candidate',
      binding: 'agents::support-agent',
      spent: 600,
      limit: 500,
      window: '1h',
      skipped: 1,
    },
  ]);

  // A restart rebuilds the windows from the recorded outcomes: still spent.
  await stop();
  await start();
  expect((await stats()).evaluation.budgets.map((budget) => budget.spent)).toEqual([600, 600]);
  await evaluate('support-agent', { recorded: 0, skipped: 2 });

  // An hour later both windows have slid by.
  offset += HOUR + 1_000;
  const again = await evaluate('support-agent', { recorded: 2, skipped: 0 });
  expect(Object.keys(await evaluationsOf(again)).sort()).toEqual(['llm-judge/candidate', 'llm-judge/strict']);
  expect((await stats()).evaluation.budgets.map((budget) => budget.spent)).toEqual([300, 300]);
});

it('leaves the skipped evaluations to evalon backfill, which evaluates exactly those', async () => {
  const out: string[] = [];
  const code = await main(['backfill', '--config', collector.configFile, '--evaluator', 'llm-judge/strict'], {
    out: (line) => out.push(line),
    err: () => {},
  });
  expect(code).toBe(0);
  // Seven interactions so far; four were skipped by the spent budget (never recorded), three recorded.
  expect(out.join('\n')).toMatch(
    new RegExp(
      '^backfill llm-judge/strict \\(version 1\\): 7 interactions read; 4 evaluated ' +
        '\\(4 passed, 0 failed, 0 inconclusive, 0 errors\\); 3 already had an outcome for this version',
    ),
  );
});
