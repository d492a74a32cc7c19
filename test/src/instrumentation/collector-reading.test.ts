/**
 * The spans of the two example agents, instrumented with `register()` + `invokeAgent`, read by the
 * collector's own interaction assembly and record builder (in process): one interaction per
 * invocation with the Anthropic SDK's spans merged into it, the id returned to the caller, tool
 * calls and final text, nested agents as their own interactions with a flowId, failures marked.
 */
import Anthropic from '@anthropic-ai/sdk';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createActivityAgent, finalText } from '../../../examples/plain-fetch-agent/activity-agent.ts';
import { activityReply } from '../../../examples/plain-fetch-agent/scripted-replies.ts';
import { supportReply } from '../../../examples/support-agent/scripted-replies.ts';
import { createSupportAgent } from '../../../examples/support-agent/support-agent.ts';
import { invokeAgent, register, type Telemetry } from '../../../src/instrumentation/index.ts';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing/scripted-model.ts';
import { recordsFromSpans } from './helpers/records-from-spans.ts';

let model: ScriptedModel;
let exporter: InMemorySpanExporter;
let telemetry: Telemetry;

beforeAll(async () => {
  model = await createScriptedModel();
  exporter = new InMemorySpanExporter();
  telemetry = register({ exporter, serviceName: 'examples', captureContent: true, shutdownOnExit: false });
});
afterEach(() => {
  model.reset();
  exporter.reset();
});
afterAll(async () => {
  await telemetry.shutdown();
  await model.close();
});

// Constructed after register(): the client reads the content mode when it is created.
const supportAgent = () =>
  createSupportAgent({
    client: new Anthropic({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 }),
    model: 'claude-scripted',
  });

async function records() {
  await telemetry.forceFlush();
  return recordsFromSpans(exporter.getFinishedSpans());
}

describe('the support agent (Anthropic SDK tool runner) as the collector reads it', () => {
  it('is one interaction of support-agent with its tool calls and final text, under the id returned', async () => {
    model.respondWith(supportReply);
    const reply = await supportAgent().ask('Where is my order A-17?', { conversationId: 'conv-a17' });
    expect(reply.result).toBe('Order A-17 has shipped with UPS and should arrive on Thursday.');

    const all = await records();
    expect(all).toHaveLength(1);
    const [record] = all;
    expect(record.interactionId).toBe(reply.interactionId);
    expect(record).toMatchObject({
      agentId: 'support-agent',
      agentName: 'Support agent',
      roles: ['customer-facing'],
      conversationId: 'conv-a17',
      failed: false,
      finalResponseText: reply.result,
      provider: 'anthropic',
    });
    expect(record.input).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Where is my order A-17?' }] }]);
    expect(record.toolCalls.map((call) => call.name)).toEqual(['get_order', 'get_shipping']);
    expect(record.toolCalls[0]).toMatchObject({
      callId: expect.stringMatching(/^toolu_get_order_/),
      arguments: { orderId: 'A-17' },
    });
    expect(record.toolCalls[1]).toMatchObject({
      callId: expect.stringMatching(/^toolu_get_shipping_/),
      arguments: { orderId: 'A-17' },
    });
    // The result is the tool's JSON text (or its parsed value, should the collector parse it).
    expect(JSON.stringify(record.toolCalls[0].result)).toContain('shipped');
    expect(JSON.stringify(record.toolCalls[1].result)).toContain('UPS');
    expect(record.usage.inputTokens).toBeGreaterThan(0);
    expect(record.attributes['service.name']).toBe('examples');
  });

  it('records a failed call as a failed interaction, and the caller gets the SDK error unchanged', async () => {
    model.fixedResponse({ errorStatus: 500 });
    const error = await supportAgent()
      .ask('Where is my order A-17?')
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    const [record] = await records();
    expect(record.agentId).toBe('support-agent');
    expect(record.failed).toBe(true);
    expect(record.failureSummary).toContain('500');
    expect(record.attributes['error.type']).toBe('InternalServerError');
  });
});

describe('the plain-fetch agent (invokeAgent alone) as the collector reads it', () => {
  it('is one interaction with the tool call from its returned messages, its usage and final text', async () => {
    model.respondWith(activityReply);
    const agent = createActivityAgent({ baseURL: model.baseURL, apiKey: 'test', model: 'claude-scripted' });
    const reply = await agent.ask('What can I do this weekend in Lisbon?', { conversationId: 'conv-weekend' });
    expect(finalText(reply.result)).toBe('Saturday looks sunny and 24°C in Lisbon: try the hiking trail by the lake.');

    const [record, ...others] = await records();
    expect(others).toHaveLength(0);
    expect(record.interactionId).toBe(reply.interactionId);
    expect(record).toMatchObject({
      agentId: 'activity-agent',
      roles: ['customer-facing', 'recommendations'],
      conversationId: 'conv-weekend',
      finalResponseText: finalText(reply.result),
      model: 'claude-scripted',
      provider: 'anthropic',
    });
    expect(record.toolCalls).toHaveLength(1);
    expect(record.toolCalls[0]).toMatchObject({
      name: 'get_weather',
      callId: 'toolu_weather_1',
      arguments: { city: 'Lisbon' },
    });
    expect(record.usage.inputTokens).toBeGreaterThan(0);
    expect(record.usage.outputTokens).toBeGreaterThan(0);
  });
});

describe('nested agents', () => {
  it('make the inner agent its own interaction whose flowId is the outer one', async () => {
    model.respondWith(supportReply);
    const support = supportAgent();
    const outer = await invokeAgent({ id: 'triage-agent', roles: ['router'], input: 'Where is A-17?' }, async () => {
      const inner = await support.ask('Where is my order A-17?');
      return { text: inner.result, innerId: inner.interactionId };
    });

    const all = await records();
    expect(all).toHaveLength(2);
    const triage = all.find((record) => record.agentId === 'triage-agent')!;
    const inner = all.find((record) => record.agentId === 'support-agent')!;
    expect(triage.interactionId).toBe(outer.interactionId);
    expect(inner.interactionId).toBe(outer.result.innerId);
    expect(inner.flowId).toBe(outer.interactionId);
    expect(inner.toolCalls.map((call) => call.name)).toEqual(['get_order', 'get_shipping']);
    // The outer interaction names the nested one instead of absorbing its tool calls.
    expect(triage.toolCalls).toEqual([]);
    expect(triage.transcript).toContainEqual(
      expect.objectContaining({ type: 'agent_call', agentId: 'support-agent', interactionId: inner.interactionId }),
    );
  });
});
