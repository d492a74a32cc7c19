/**
 * Acceptance, end to end: the support agent example (Anthropic SDK tool runner, two tools), run
 * against the scripted model with a real collector running, yields the expected interaction —
 * agent id, roles, conversation, tool calls, final text — under the interaction id the caller got.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supportReply } from '../../examples/support-agent/scripted-replies.ts';
import { createSupportAgent } from '../../examples/support-agent/support-agent.ts';
import { register, type Telemetry } from '../../src/instrumentation/index.ts';
import { createScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model.ts';
import { startTestCollector, type TestCollector } from '../helpers/collector.ts';
import { runExample } from './run-example.ts';

let collector: TestCollector;
beforeAll(async () => {
  collector = await startTestCollector();
});
afterAll(async () => {
  await collector?.close();
});

describe('the support agent example with a collector running', () => {
  it('run as a CLI (--scripted), is recorded as one interaction under the id it prints', async () => {
    const run = await runExample(
      'examples/support-agent/main.ts',
      ['--scripted', 'Where is my order A-17?', '--conversation', 'conv-cli-a17'],
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.otlpUrl,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.fields.answer).toBe('Order A-17 has shipped with UPS and should arrive on Thursday.');
    expect(run.fields.interaction).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}$/);

    const record = await collector.waitForInteraction((r) => r.interactionId === run.fields.interaction);
    expect(record).toMatchObject({
      agentId: 'support-agent',
      agentName: 'Support agent',
      roles: ['customer-facing'],
      conversationId: 'conv-cli-a17',
      failed: false,
      finalResponseText: run.fields.answer,
      completion: 'structural',
    });
    expect(record.input[0]).toMatchObject({
      role: 'user',
      parts: [{ type: 'text', content: 'Where is my order A-17?' }],
    });
    expect(record.toolCalls.map((call) => call.name)).toEqual(['get_order', 'get_shipping']);
    expect(record.toolCalls.every((call) => (call.arguments as { orderId?: string }).orderId === 'A-17')).toBe(true);
    expect(JSON.stringify(record.toolCalls[0].result)).toContain('shipped');
    expect(JSON.stringify(record.toolCalls[1].result)).toContain('UPS');
    expect(record.attributes['service.name']).toBe('support-service');
    // The SDK's tool-runner span merged into the agent's interaction: one interaction in the trace.
    const inTrace = (await collector.interactions('?limit=1000')).filter((r) => r.traceId === record.traceId);
    expect(inTrace).toHaveLength(1);
  });

  it('in process, resolves each answer with the interaction id the collector records', async () => {
    const model: ScriptedModel = (await createScriptedModel()).respondWith(supportReply);
    const telemetry: Telemetry = register({ endpoint: collector.otlpUrl, captureContent: true, shutdownOnExit: false });
    try {
      const agent = createSupportAgent({
        client: new Anthropic({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 }),
        model: 'claude-scripted',
      });
      const first = await agent.ask('Where is my order B-42?', { conversationId: 'conv-inproc' });
      const second = await agent.ask('And order C-08?', { conversationId: 'conv-inproc' });
      await telemetry.forceFlush();
      const one = await collector.waitForInteraction((r) => r.interactionId === first.interactionId);
      const two = await collector.waitForInteraction((r) => r.interactionId === second.interactionId);
      expect(one.finalResponseText).toBe(first.result);
      expect(two.finalResponseText).toBe('Order C-08 was delivered by DHL on Monday.');
      expect([one.conversationId, two.conversationId]).toEqual(['conv-inproc', 'conv-inproc']);
      expect(telemetry.stats()).toMatchObject({ failedSpans: 0, droppedSpans: 0 });
      const byConversation = await collector.interactions('?agent=support-agent&conversation=conv-inproc');
      expect(byConversation.map((r) => r.interactionId).sort()).toEqual(
        [first.interactionId, second.interactionId].sort(),
      );
    } finally {
      await telemetry.shutdown();
      await model.close();
    }
  });

  it('records a failing model call as a failed interaction, the error reaching the caller', async () => {
    const model: ScriptedModel = (await createScriptedModel()).fixedResponse({ errorStatus: 529 });
    const telemetry = register({ endpoint: collector.otlpUrl, shutdownOnExit: false });
    try {
      const agent = createSupportAgent({
        client: new Anthropic({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 }),
        model: 'claude-scripted',
      });
      const error = await agent
        .ask('Where is my order A-17?', { conversationId: 'conv-failing' })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      await telemetry.forceFlush();
      const failed = await collector.waitForInteraction((r) => r.conversationId === 'conv-failing');
      expect(failed).toMatchObject({ agentId: 'support-agent', failed: true });
      expect(failed.interactionId).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}$/);
      expect(failed.failureSummary).toContain('529');
    } finally {
      await telemetry.shutdown();
      await model.close();
    }
  });
});
