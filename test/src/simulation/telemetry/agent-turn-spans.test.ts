import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExportResultCode } from '@opentelemetry/core';
import { InMemorySpanExporter, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSimulateCommand } from '../../../../collector/cli/simulate-command.ts';
import { runScenario } from '../../../../src/simulation/run/run-scenario.ts';
import { loadScenario } from '../../../../src/simulation/scenario/scenario-loader.ts';
import { createSimulationTelemetry, tracesEndpoint } from '../../../../src/simulation/telemetry/otlp-telemetry.ts';
import { lastUserText, startModel, type ModelFixture } from '../../../helpers/model-fixture.ts';

describe('OTel emission of agent turns', () => {
  let model: ModelFixture;
  beforeAll(async () => {
    model = await startModel();
  });
  afterAll(() => model.close());

  function routeFlight(): void {
    let agentCalls = 0;
    model.scripted.reset();
    model.route({
      participant: (request) =>
        lastUserText(request).includes('Rebooked') ? 'Thanks [END]' : 'Please rebook BK-5678.',
      agent: () =>
        ++agentCalls === 1
          ? {
              toolUse: [
                { name: 'flight_lookup', input: { flight_number: 'AA123' } },
                { name: 'flight_rebook', input: { booking_ref: 'BK-5678', new_flight_number: 'NOPE' } },
              ],
            }
          : 'Rebooked.',
    });
  }

  it('emits each agent turn as an invoke_agent span with execute_tool children, keyed by the run id', async () => {
    routeFlight();
    const exporter = new InMemorySpanExporter();
    const telemetry = createSimulationTelemetry(exporter, { agentId: 'support-agent', model: 'scripted' });
    const scenario = await loadScenario('scenarios/reschedule_flight.yaml');
    const result = await runScenario(scenario, {
      model: model.client,
      thinkingDelays: false,
      onAgentTurn: (turn) => telemetry.onAgentTurn(turn),
      onRunEnd: (runId) => telemetry.onRunEnd(runId),
    });
    await telemetry.forceFlush();
    const spans = exporter.getFinishedSpans();
    await telemetry.shutdown();
    const turns = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'invoke_agent');
    expect(turns).toHaveLength(1);
    const turn = turns[0];
    expect(turn.name).toBe('invoke_agent agent');
    expect(turn.attributes).toMatchObject({
      'gen_ai.agent.name': 'agent',
      'gen_ai.agent.id': 'support-agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'scripted',
      'gen_ai.conversation.id': result.runId,
      'evalon.simulation.scenario': 'reschedule_flight',
      'evalon.simulation.respond_in': 'support_chat',
      // The run's only (so last) turn ends its conversation.
      'evalon.conversation.ended': true,
    });
    expect(JSON.parse(String(turn.attributes['gen_ai.input.messages']))[0]).toEqual({
      role: 'user',
      name: 'end_user',
      parts: [{ type: 'text', content: 'Please rebook BK-5678.' }],
    });
    expect(JSON.parse(String(turn.attributes['gen_ai.output.messages']))[0].parts[0].content).toBe('Rebooked.');
    const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((span) => span.name)).toEqual(['execute_tool flight_lookup', 'execute_tool flight_rebook']);
    for (const tool of tools) {
      expect(tool.spanContext().traceId).toBe(turn.spanContext().traceId);
      expect(tool.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    }
    expect(JSON.parse(String(tools[0].attributes['gen_ai.tool.call.arguments']))).toEqual({ flight_number: 'AA123' });
    expect(tools[1].attributes['gen_ai.tool.call.result']).toBe('{"error":"Flight NOPE not found"}');
  });

  it('makes a run one conversation whose last turn ends it, holding each turn until the next is known', async () => {
    const exported: ReadableSpan[] = [];
    const exporter: SpanExporter = {
      export: (spans, done) => {
        exported.push(...spans);
        done({ code: ExportResultCode.SUCCESS });
      },
      shutdown: async () => {},
    };
    const telemetry = createSimulationTelemetry(exporter, { agentId: 'support-agent' });
    const turn = (runId: string, n: number) => ({
      runId,
      scenario: 's',
      trial: 1,
      agent: 'agent',
      respondIn: 'chat',
      history: [],
      events: [],
      startedAt: 1_750_000_000_000 + n * 1000,
      endedAt: 1_750_000_000_500 + n * 1000,
      action: { type: 'send' as const, message: { sender: 'agent', content: `reply ${n}` }, toolInteractions: [] },
    });
    const spans = () =>
      exported.map((span) => [
        span.attributes['gen_ai.conversation.id'],
        span.attributes['evalon.conversation.ended'] ?? false,
      ]);
    telemetry.onAgentTurn(turn('run-1', 1));
    telemetry.onAgentTurn(turn('run-2', 1));
    await telemetry.forceFlush();
    expect(spans()).toEqual([]);
    telemetry.onAgentTurn(turn('run-1', 2));
    await telemetry.forceFlush();
    expect(spans()).toEqual([['run-1', false]]);
    telemetry.onRunEnd('run-1');
    telemetry.onRunEnd('unknown-run');
    await telemetry.forceFlush();
    expect(spans()).toEqual([
      ['run-1', false],
      ['run-1', true],
    ]);
    // Shutting down ends the runs still held.
    await telemetry.shutdown();
    expect(spans()).toEqual([
      ['run-1', false],
      ['run-1', true],
      ['run-2', true],
    ]);
  });

  it('reads the OTLP endpoint from the environment', () => {
    expect(tracesEndpoint({})).toBeUndefined();
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toBe('http://c:4318/v1/traces');
    expect(
      tracesEndpoint({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x',
      }),
    ).toBe('http://t/x');
  });

  describe('through the CLI', () => {
    let collector: Server;
    const received: Array<{ url: string; body: Buffer }> = [];
    beforeAll(async () => {
      collector = createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        received.push({ url: req.url ?? '', body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
      await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

    it('sends the spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set', async () => {
      routeFlight();
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      const env = {
        ANTHROPIC_BASE_URL: model.scripted.baseURL,
        ANTHROPIC_API_KEY: 'k',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      };
      await runSimulateCommand(
        ['scenarios/reschedule_flight.yaml', '--no-save', '--json'],
        { out: () => {}, err: () => {} },
        { env, color: false },
      );
      expect(received.map((request) => request.url)).toContain('/v1/traces');
      const body = Buffer.concat(received.map((request) => request.body)).toString('latin1');
      expect(body).toContain('invoke_agent agent');
      expect(body).toContain('execute_tool flight_rebook');
    });
  });
});
