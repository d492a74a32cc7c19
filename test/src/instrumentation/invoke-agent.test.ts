/**
 * `invokeAgent` against a real OpenTelemetry SDK (TracerProvider + InMemorySpanExporter, registered
 * globally as an application would), without `register()`: the wrapper works with any SDK.
 */
import { context, SpanStatusCode, trace, type TracerProvider as ApiTracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configureContent } from '../../../src/instrumentation/content-settings.ts';
import { invokeAgent } from '../../../src/instrumentation/index.ts';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});
afterEach(() => {
  exporter.reset();
  configureContent(undefined);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

const idOf = (span: ReadableSpan) => `${span.spanContext().traceId}-${span.spanContext().spanId}`;
const agentSpans = () =>
  exporter.getFinishedSpans().filter((span) => span.attributes['gen_ai.operation.name'] === 'invoke_agent');
const withContent = () => configureContent({ captureContent: true, maxContentBytes: 256 * 1024 });

describe('invokeAgent', () => {
  it('creates an invoke_agent span with the semconv agent attributes and returns its interaction id', async () => {
    const reply = await invokeAgent(
      {
        id: 'support-agent',
        name: 'Support agent',
        description: 'Answers order questions',
        version: '1.2.0',
        roles: ['customer-facing', 'tier-1'],
        conversationId: 'conv-42',
        attributes: { 'evalon.team': 'care' },
      },
      () => 'Your order has shipped.',
    );
    expect(reply.result).toBe('Your order has shipped.');
    const [span] = agentSpans();
    expect(span.name).toBe('invoke_agent Support agent');
    expect(span.kind).toBe(0); // INTERNAL: an in-process agent
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      'gen_ai.agent.name': 'Support agent',
      'gen_ai.agent.description': 'Answers order questions',
      'gen_ai.agent.version': '1.2.0',
      'gen_ai.conversation.id': 'conv-42',
      'evalon.agent.roles': ['customer-facing', 'tier-1'],
      'evalon.team': 'care',
    });
    expect(reply.interactionId).toBe(idOf(span));
    expect(reply.interactionId).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}$/);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('accepts a single role as a string and names the span after the id when there is no name', async () => {
    await invokeAgent({ id: 'billing-agent', roles: 'back-office' }, async () => 'ok');
    const [span] = agentSpans();
    expect(span.name).toBe('invoke_agent billing-agent');
    expect(span.attributes['evalon.agent.roles']).toEqual(['back-office']);
  });

  it('records no content unless capture is on', async () => {
    await invokeAgent({ id: 'a', input: 'secret question' }, () => 'secret answer');
    const [span] = agentSpans();
    expect(span.attributes['gen_ai.input.messages']).toBeUndefined();
    expect(span.attributes['gen_ai.output.messages']).toBeUndefined();
  });

  it('records input and output as semconv messages (JSON strings) when capture is on', async () => {
    withContent();
    await invokeAgent({ id: 'a', input: 'Where is A-17?' }, () => 'It shipped.');
    const [span] = agentSpans();
    expect(JSON.parse(span.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Where is A-17?' }] },
    ]);
    expect(JSON.parse(span.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'It shipped.' }] },
    ]);
  });

  it('keeps messages given as semconv messages, and lets one call override the capture setting', async () => {
    const input = [
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Hi' }] },
    ];
    const output = [
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'lookup', arguments: { q: 1 } }] },
    ];
    await invokeAgent({ id: 'a', input, captureContent: true }, () => output);
    const [span] = agentSpans();
    expect(JSON.parse(span.attributes['gen_ai.input.messages'] as string)).toEqual(input);
    expect(JSON.parse(span.attributes['gen_ai.output.messages'] as string)).toEqual(output);

    exporter.reset();
    withContent();
    await invokeAgent({ id: 'a', input: 'x', captureContent: false }, () => 'y');
    expect(agentSpans()[0].attributes['gen_ai.input.messages']).toBeUndefined();
  });

  it('records no output for a result that is neither text nor messages', async () => {
    withContent();
    const reply = await invokeAgent({ id: 'a' }, () => ({ answer: 42 }));
    expect(reply.result).toEqual({ answer: 42 });
    expect(agentSpans()[0].attributes['gen_ai.output.messages']).toBeUndefined();
  });

  it('bounds content, keeping the latest messages and marking the span', async () => {
    configureContent({ captureContent: true, maxContentBytes: 2000 });
    const history = Array.from({ length: 50 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      parts: [{ type: 'text', content: `turn ${i} `.repeat(10) }],
    }));
    await invokeAgent({ id: 'a', input: history }, () => 'x'.repeat(10_000));
    const [span] = agentSpans();
    const input = span.attributes['gen_ai.input.messages'] as string;
    const output = span.attributes['gen_ai.output.messages'] as string;
    expect(Buffer.byteLength(input)).toBeLessThanOrEqual(2000);
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(2000);
    expect(JSON.parse(input).at(-1)).toEqual(history.at(-1));
    expect(JSON.parse(output)[0].parts[0].content).toMatch(/^x+…$/);
    expect(span.attributes['evalon.content.truncated']).toBe(true);
  });

  it('marks a failure (status ERROR, error.type, exception) and re-throws the very same error', async () => {
    class GuardrailError extends Error {}
    const thrown = new GuardrailError('blocked by the guardrail');
    const outcome = await invokeAgent({ id: 'a' }, async () => {
      throw thrown;
    }).catch((error: unknown) => error);
    expect(outcome).toBe(thrown);
    const [span] = agentSpans();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'blocked by the guardrail' });
    expect(span.attributes['error.type']).toBe('GuardrailError');
    expect(span.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('re-throws synchronous throws and non-Error values unchanged, with error.type _OTHER', async () => {
    const outcome = await invokeAgent({ id: 'a' }, () => {
      throw 'plain string';
    }).catch((error: unknown) => error);
    expect(outcome).toBe('plain string');
    const [span] = agentSpans();
    expect(span.attributes['error.type']).toBe('_OTHER');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('makes its span the active one, so the spans the agent makes are its children', async () => {
    const reply = await invokeAgent({ id: 'a' }, async (invocation) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      const child = trace.getTracer('test').startSpan('chat model');
      child.end();
      invocation.span.setAttribute('gen_ai.usage.input_tokens', 12);
      return invocation.interactionId;
    });
    const [agent] = agentSpans();
    const child = exporter.getFinishedSpans().find((span) => span.name === 'chat model')!;
    expect(child.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
    expect(reply.result).toBe(reply.interactionId);
    expect(agent.attributes['gen_ai.usage.input_tokens']).toBe(12);
  });

  it(
    'gives a nested agent of another id its own interaction, and a nested call of the same agent the enclosing ' +
      'one',
    async () => {
      const outer = await invokeAgent({ id: 'triage-agent' }, async () => {
        const billing = await invokeAgent({ id: 'billing-agent' }, () => 'billing answer');
        const again = await invokeAgent({ id: 'triage-agent' }, () => 'recursive answer');
        return { billing, again };
      });
      const spans = agentSpans();
      const byId = (id: string) => spans.filter((span) => span.attributes['gen_ai.agent.id'] === id);
      const [outerSpan, innerTriage] = byId('triage-agent').sort(
        (a, b) => (a.parentSpanContext ? 1 : 0) - (b.parentSpanContext ? 1 : 0),
      );
      const [billingSpan] = byId('billing-agent');
      expect(outer.interactionId).toBe(idOf(outerSpan));
      expect(outer.result.billing.interactionId).toBe(idOf(billingSpan));
      expect(billingSpan.parentSpanContext?.spanId).toBe(outerSpan.spanContext().spanId);
      expect(outer.result.again.interactionId).toBe(outer.interactionId);
      expect(innerTriage.parentSpanContext?.spanId).toBe(outerSpan.spanContext().spanId);
    },
  );

  it('runs the agent when the tracer provider throws, and returns no interaction id', async () => {
    const broken: ApiTracerProvider = {
      getTracer: () => ({
        startSpan: () => {
          throw new Error('broken tracer');
        },
        startActiveSpan: () => {
          throw new Error('broken tracer');
        },
      }),
    };
    trace.disable();
    trace.setGlobalTracerProvider(broken);
    try {
      const reply = await invokeAgent({ id: 'a', input: 'q' }, () => 'still answers');
      expect(reply).toEqual({ result: 'still answers', interactionId: undefined });
    } finally {
      trace.disable();
      trace.setGlobalTracerProvider(provider);
    }
  });

  it('runs the agent when a span processor throws on end', async () => {
    const throwing = new TracerProvider({
      spanProcessors: [
        {
          onStart() {},
          onEnd() {
            throw new Error('processor failure');
          },
          forceFlush: async () => {},
          shutdown: async () => {},
        },
      ],
    });
    trace.disable();
    trace.setGlobalTracerProvider(throwing);
    try {
      withContent();
      const reply = await invokeAgent({ id: 'a', input: 'q' }, () => 'answer');
      expect(reply.result).toBe('answer');
      const failure = new Error('agent failure');
      await expect(invokeAgent({ id: 'a' }, () => Promise.reject(failure))).rejects.toBe(failure);
    } finally {
      trace.disable();
      trace.setGlobalTracerProvider(provider);
    }
  });

  it('returns no interaction id when no OpenTelemetry SDK is registered', async () => {
    trace.disable();
    try {
      const reply = await invokeAgent({ id: 'a' }, (invocation) => {
        expect(invocation.interactionId).toBeUndefined();
        return 'fine';
      });
      expect(reply).toEqual({ result: 'fine', interactionId: undefined });
    } finally {
      trace.setGlobalTracerProvider(provider);
    }
  });

  it('still runs when the id is missing (a JavaScript caller), leaving the agent to service.name', async () => {
    const reply = await invokeAgent({} as { id: string }, () => 'ok');
    expect(reply.result).toBe('ok');
    const [span] = agentSpans();
    expect(span.name).toBe('invoke_agent');
    expect(span.attributes['gen_ai.agent.id']).toBeUndefined();
  });
});
