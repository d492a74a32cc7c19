import { describe, expect, it } from 'vitest';
import type { Attributes, SpanData } from '../../../../collector/model/span.ts';
import {
  CLASSIFIED_ATTRIBUTES,
  agentIdOf,
  classifyInvocation,
  rolesOf,
} from '../../../../collector/processor/interactions/classify.ts';
import { openInferenceTrace } from '../../../fixtures/dialects/openinference.ts';
import { legacySemconvTrace, semconvTrace } from '../../../fixtures/dialects/semconv.ts';
import { traceBuilder } from '../../../fixtures/dialects/trace-builder.ts';
import { traceloopTrace } from '../../../fixtures/dialects/traceloop.ts';
import { vercelTrace } from '../../../fixtures/dialects/vercel.ts';

function spanOf(name: string, attributes: Attributes = {}, resource?: Attributes): SpanData {
  return traceBuilder({ traceId: 'c0ffee00c0ffee00c0ffee00c0ffee00', resource }).span({
    name,
    start: 0,
    end: 1,
    attributes,
  });
}

const INVOCATIONS: Array<[string, SpanData, object]> = [
  [
    'semconv invoke_agent with gen_ai.agent.id',
    spanOf('invoke_agent', {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'a1',
      'gen_ai.agent.name': 'Agent One',
    }),
    { dialect: 'semconv', agentIdentity: 'a1' },
  ],
  [
    'semconv invoke_agent with only gen_ai.agent.name',
    spanOf('invoke_agent x', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'x' }),
    { dialect: 'semconv', agentIdentity: 'x' },
  ],
  [
    'semconv invoke_agent naming no agent',
    spanOf('invoke_agent', { 'gen_ai.operation.name': 'invoke_agent' }),
    { dialect: 'semconv' },
  ],
  [
    'the Anthropic tool runner',
    spanOf('anthropic.messages.tool_runner', {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
    }),
    { dialect: 'anthropic' },
  ],
  [
    'OpenInference AGENT with agent.name',
    spanOf('AgentExecutor', { 'openinference.span.kind': 'AGENT', 'agent.name': 'researcher' }),
    { dialect: 'openinference', agentIdentity: 'researcher' },
  ],
  [
    'OpenInference AGENT named by its span',
    spanOf('AgentExecutor', { 'openinference.span.kind': 'AGENT' }),
    { dialect: 'openinference', agentIdentity: 'AgentExecutor' },
  ],
  [
    'OpenInference AGENT with gen_ai.agent.id too',
    spanOf('AgentExecutor', { 'openinference.span.kind': 'AGENT', 'agent.name': 'r', 'gen_ai.agent.id': 'r-1' }),
    { dialect: 'openinference', agentIdentity: 'r-1' },
  ],
  [
    'Traceloop agent',
    spanOf('planner.agent', { 'traceloop.span.kind': 'agent', 'traceloop.entity.name': 'planner' }),
    { dialect: 'traceloop', agentIdentity: 'planner' },
  ],
  [
    'Traceloop agent also carrying invoke_agent',
    spanOf('planner.agent', {
      'traceloop.span.kind': 'agent',
      'traceloop.entity.name': 'planner',
      'gen_ai.operation.name': 'invoke_agent',
    }),
    { dialect: 'traceloop', agentIdentity: 'planner' },
  ],
  [
    'Vercel generateText with a functionId',
    spanOf('ai.generateText', { 'ai.telemetry.functionId': 'trip-agent' }),
    { dialect: 'vercel', agentIdentity: 'trip-agent' },
  ],
  ['Vercel streamText without a functionId', spanOf('ai.streamText'), { dialect: 'vercel' }],
  ['Vercel generateObject', spanOf('ai.generateObject'), { dialect: 'vercel' }],
  ['Vercel streamObject', spanOf('ai.streamObject'), { dialect: 'vercel' }],
];

const NOT_INVOCATIONS: Array<[string, SpanData]> = [
  ['a semconv chat span', spanOf('chat gpt-4o', { 'gen_ai.operation.name': 'chat' })],
  ['a semconv execute_tool span', spanOf('execute_tool x', { 'gen_ai.operation.name': 'execute_tool' })],
  ['a legacy OpenLLMetry LLM span', spanOf('openai.chat', { 'llm.request.type': 'chat', 'gen_ai.system': 'openai' })],
  ['an Anthropic chat span', spanOf('anthropic.messages.create', { 'gen_ai.operation.name': 'chat' })],
  ['an Anthropic tool span', spanOf('anthropic.custom_tool_use lookup', { 'gen_ai.operation.name': 'execute_tool' })],
  ['an OpenInference LLM span', spanOf('ChatOpenAI', { 'openinference.span.kind': 'LLM' })],
  ['an OpenInference TOOL span', spanOf('search', { 'openinference.span.kind': 'TOOL' })],
  ['a Traceloop workflow span', spanOf('w.workflow', { 'traceloop.span.kind': 'workflow' })],
  ['a Traceloop tool span', spanOf('t.tool', { 'traceloop.span.kind': 'tool' })],
  [
    'a Vercel doGenerate step',
    spanOf('ai.generateText.doGenerate', { 'ai.operationId': 'ai.generateText.doGenerate' }),
  ],
  ['a Vercel doStream step', spanOf('ai.streamText.doStream')],
  ['a Vercel tool call', spanOf('ai.toolCall')],
  ['a Vercel embed', spanOf('ai.embed')],
  ['an HTTP span', spanOf('GET /weather', { 'http.request.method': 'GET' })],
];

describe('classifyInvocation', () => {
  it.each(INVOCATIONS)('recognises %s', (_, span, expected) => {
    expect(classifyInvocation(span)).toEqual(expected);
  });

  it.each(NOT_INVOCATIONS)('ignores %s', (_, span) => {
    expect(classifyInvocation(span)).toBeUndefined();
  });

  it('finds exactly the invocation span in each dialect fixture', () => {
    for (const { root, spans } of [
      semconvTrace(),
      legacySemconvTrace(),
      openInferenceTrace(),
      traceloopTrace(),
      vercelTrace(),
    ]) {
      expect(spans.filter((span) => classifyInvocation(span) !== undefined)).toEqual([root]);
    }
  });
});

describe('CLASSIFIED_ATTRIBUTES', () => {
  const everySpan = (): SpanData[] => [
    ...INVOCATIONS.map(([, span]) => span),
    ...NOT_INVOCATIONS.map(([, span]) => span),
    ...[semconvTrace(), legacySemconvTrace(), openInferenceTrace(), traceloopTrace(), vercelTrace()].flatMap(
      (trace) => trace.spans,
    ),
  ];

  it('names every attribute the classifier reads, on spans of every dialect', () => {
    const read = new Set<string>();
    for (const span of everySpan()) {
      const attributes = new Proxy(span.attributes, {
        get(target, key) {
          if (typeof key === 'string') read.add(key);
          return target[key as string];
        },
        has(target, key) {
          if (typeof key === 'string') read.add(key);
          return key in target;
        },
        ownKeys() {
          throw new Error('the classifier must read attributes by name');
        },
      });
      classifyInvocation({ ...span, attributes });
    }
    expect(read.size).toBeGreaterThan(5);
    expect([...read].filter((key) => !CLASSIFIED_ATTRIBUTES.has(key))).toEqual([]);
  });

  it('classifies a span head carrying only those attributes as its whole span', () => {
    let invocations = 0;
    for (const span of everySpan()) {
      const attributes = Object.fromEntries(
        Object.entries(span.attributes).filter(([key]) => CLASSIFIED_ATTRIBUTES.has(key)),
      );
      const head = { traceId: span.traceId, spanId: span.spanId, name: span.name, flags: span.flags, attributes };
      const whole = classifyInvocation(span);
      if (whole) invocations++;
      expect(classifyInvocation({ ...head, origin: { scopeName: span.origin.scopeName } })).toEqual(whole);
    }
    expect(invocations).toBeGreaterThan(10);
  });
});

describe('agentIdOf', () => {
  it("uses the span's own identity, else the resource service.name, else unknown_agent", () => {
    expect(
      agentIdOf(
        spanOf(
          'invoke_agent',
          { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'a' },
          { 'service.name': 's' },
        ),
      ),
    ).toBe('a');
    expect(
      agentIdOf(spanOf('invoke_agent', { 'gen_ai.operation.name': 'invoke_agent' }, { 'service.name': 's' })),
    ).toBe('s');
    expect(agentIdOf(spanOf('invoke_agent', { 'gen_ai.operation.name': 'invoke_agent' }, {}))).toBe('unknown_agent');
  });
});

describe('rolesOf', () => {
  it('reads evalon.agent.roles as an array, a single string, or from the resource', () => {
    expect(rolesOf(spanOf('s', { 'evalon.agent.roles': ['customer-facing', 'billing'] }))).toEqual([
      'customer-facing',
      'billing',
    ]);
    expect(rolesOf(spanOf('s', { 'evalon.agent.roles': 'customer-facing' }))).toEqual(['customer-facing']);
    expect(rolesOf(spanOf('s', {}, { 'evalon.agent.roles': ['from-resource'] }))).toEqual(['from-resource']);
    expect(rolesOf(spanOf('s', { 'evalon.agent.roles': ['span'] }, { 'evalon.agent.roles': ['resource'] }))).toEqual([
      'span',
    ]);
    expect(rolesOf(spanOf('s', {}, {}))).toEqual([]);
  });
});
