/**
 * Acceptance, end to end: the plain-fetch example (no model SDK, `invokeAgent` alone), run against
 * the scripted model with a real collector running, yields the expected interaction under the id
 * it prints: agent id, roles, conversation, the tool call, usage and final text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCollector, type TestCollector } from '../helpers/collector.ts';
import { runExample } from './run-example.ts';

let collector: TestCollector;
beforeAll(async () => {
  collector = await startTestCollector();
});
afterAll(async () => {
  await collector?.close();
});

describe('the plain-fetch agent example with a collector running', () => {
  it('run as a CLI (--scripted), is recorded as one interaction under the id it prints', async () => {
    const run = await runExample(
      'examples/plain-fetch-agent/main.ts',
      [
        '--scripted',
        'What can I do this weekend in Lisbon?',
        '--conversation',
        'conv-weekend',
        '--model',
        'claude-scripted',
      ],
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.otlpUrl.replace(/\/v1\/traces$/, ''),
        OTEL_SERVICE_NAME: 'weekend-service',
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.fields.answer).toBe('Saturday looks sunny and 24°C in Lisbon: try the hiking trail by the lake.');

    const record = await collector.waitForInteraction((r) => r.interactionId === run.fields.interaction);
    expect(record).toMatchObject({
      agentId: 'activity-agent',
      agentName: 'Activity agent',
      roles: ['customer-facing', 'recommendations'],
      conversationId: 'conv-weekend',
      failed: false,
      finalResponseText: run.fields.answer,
      model: 'claude-scripted',
      provider: 'anthropic',
    });
    expect(record.input[0]).toMatchObject({
      role: 'user',
      parts: [{ type: 'text', content: 'What can I do this weekend in Lisbon?' }],
    });
    expect(record.toolCalls).toHaveLength(1);
    expect(record.toolCalls[0]).toMatchObject({ name: 'get_weather', arguments: { city: 'Lisbon' } });
    expect(record.usage.inputTokens).toBeGreaterThan(0);
    expect(record.attributes['service.name']).toBe('weekend-service');
  });
});
