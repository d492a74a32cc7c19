/**
 * A conversation survives a crash: a collector (a child process) is killed with SIGKILL while a
 * conversation is open — two turns recorded, a third acknowledged but maybe not yet recorded — and
 * restarted on the same ledger; more turns come, the last one ends the conversation, and it gets
 * one evaluation that saw every turn. Spans go through the official OpenTelemetry exporter.
 */
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { ConversationWithInteractions, EvaluationRecord } from '../../src/model/records.ts';
import { testConfigYaml } from '../helpers/collector.ts';
import { spawnCollector, type CollectorProcess } from '../helpers/collector-process.ts';
import { pollUntil } from '../helpers/poll.ts';

const dir = mkdtempSync(join(tmpdir(), 'evalon-conversation-kill9-'));
const processes: CollectorProcess[] = [];
afterAll(() => {
  for (const p of processes) p.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** An instrumented agent sending to one collector: each turn one trace, flushed (acknowledged) at once. */
function agentFor(otlpUrl: string) {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'shop' }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: otlpUrl }) })],
  });
  const tracer = provider.getTracer('conversation-kill9');
  return {
    async turn(n: number, options: { tool?: boolean; end?: boolean } = {}): Promise<string> {
      const span = tracer.startSpan('invoke_agent support-agent', {
        root: true,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.id': 'support-agent',
          'gen_ai.conversation.id': 'c-crash',
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'text', content: `reply ${n}` }] },
          ]),
          ...(options.end ? { 'evalon.conversation.ended': true } : {}),
        },
      });
      if (options.tool) {
        tracer
          .startSpan(
            'execute_tool get_order',
            { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_order' } },
            trace.setSpan(context.active(), span),
          )
          .end();
      }
      span.end();
      await provider.forceFlush();
      return `${span.spanContext().traceId}-${span.spanContext().spanId}`;
    },
    shutdown: () => provider.shutdown(),
  };
}

async function conversation(apiUrl: string): Promise<ConversationWithInteractions | undefined> {
  const response = await fetch(`${apiUrl}/api/v1/conversations/c-crash`);
  return response.status === 200 ? ((await response.json()) as ConversationWithInteractions) : undefined;
}

it('evaluates a conversation once, with every turn, across a kill -9 while it was open', async () => {
  const configFile = join(dir, 'otel-config.yaml');
  writeFileSync(
    configFile,
    testConfigYaml(dir).replace(
      '  evaluation:\n',
      `    conversation_idle: 1h
  evaluation:
    evaluators:
      tool-call-required:
        tools: [ get_order ]
        agents:
          support-agent: { trigger: conversation }
`,
    ),
  );
  const first = await spawnCollector(configFile);
  processes.push(first);
  const before = agentFor(first.otlpUrl);
  const ids = [await before.turn(1), await before.turn(2, { tool: true })];
  await pollUntil(async () => ((await conversation(first.apiUrl))?.turns === 2 ? true : undefined), {
    timeoutMs: 15_000,
    what: 'two turns recorded',
  });
  // Acknowledged (stored), then killed: recorded now or replayed after the restart.
  ids.push(await before.turn(3));
  first.child.kill('SIGKILL');
  await first.exited;
  await before.shutdown();

  const second = await spawnCollector(configFile);
  processes.push(second);
  const after = agentFor(second.otlpUrl);
  ids.push(await after.turn(4, { end: true }));
  await after.shutdown();
  const evaluations = await pollUntil(
    async () => {
      const response = await fetch(`${second.apiUrl}/api/v1/conversations/c-crash/evaluations`);
      const { evaluations: found } = (await response.json()) as { evaluations: EvaluationRecord[] };
      return found.length > 0 ? found : undefined;
    },
    { timeoutMs: 30_000, what: 'the conversation evaluation' },
  );
  expect(evaluations).toHaveLength(1);
  expect(evaluations[0]).toMatchObject({
    interactionId: ids[3],
    subject: { kind: 'conversation', conversationId: 'c-crash', agentId: 'support-agent', revision: 1 },
    outcome: {
      type: 'verdict',
      evaluation: { passed: true, explanation: 'called get_order in 4 turns (all required)' },
    },
  });
  expect(await conversation(second.apiUrl)).toMatchObject({
    revision: 1,
    open: false,
    endReason: 'explicit',
    interactionIds: ids,
  });
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
}, 120_000);
