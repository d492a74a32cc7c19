/**
 * What the human-review end-to-end tests share: a support agent's invocation as the official
 * OpenTelemetry SDK exports it (a question, a tool call with its arguments and result, an answer),
 * a scripted judge model that fails the answers that say "wrong", and the collector configuration
 * that routes those failures to human review.
 */
import { context, trace, type Tracer } from '@opentelemetry/api';
import type { RecordedRequest, ScriptedReply } from '../../src/testing/scripted-model.ts';

/**
 * One invocation of support-agent with a `lookup_order` tool call; the interaction's id. With
 * `conversation`, a turn of that conversation (`ends`: its last).
 */
export function runSupportAgent(
  tracer: Tracer,
  question: string,
  answer: string,
  conversation?: { id: string; ends?: boolean },
): string {
  const agent = tracer.startSpan('invoke_agent support-agent', {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      ...(conversation ? { 'gen_ai.conversation.id': conversation.id } : {}),
      ...(conversation?.ends ? { 'evalon.conversation.ended': true } : {}),
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]),
    },
  });
  const tool = tracer.startSpan(
    'execute_tool lookup_order',
    {
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup_order',
        'gen_ai.tool.call.id': 'call_1',
        'gen_ai.tool.call.arguments': JSON.stringify({ order: 'A-17' }),
        'gen_ai.tool.call.result': JSON.stringify({ status: 'shipped <b>today</b>' }),
      },
    },
    trace.setSpan(context.active(), agent),
  );
  tool.end();
  agent.end();
  const { traceId, spanId } = agent.spanContext();
  return `${traceId}-${spanId}`;
}

/** The judge's verdict: fails a transcript whose answer says "wrong". */
export function judgeReply(request: RecordedRequest): ScriptedReply {
  const text = JSON.stringify(request.body.messages);
  const wrong = text.includes('wrong');
  return {
    toolUse: [
      {
        name: 'record_verdict',
        input: { passed: !wrong, reasoning: wrong ? 'the answer is wrong' : 'the answer is right' },
      },
    ],
    usage: { input_tokens: 50, output_tokens: 5 },
  };
}

/** `processors.evaluation.evaluators`: a criteria-judge on support-agent, its failures routed to review. */
export const ROUTED_REVIEW_EVALUATORS = `    evaluators:
      criteria-judge:
        criteria:
          - { name: correct, description: "The answer is correct" }
        agents:
          support-agent: { trigger: interaction }
      human-review:
        after: criteria-judge
        when: [fail]
        agents:
          support-agent: { trigger: interaction }
`;
