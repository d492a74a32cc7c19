/**
 * Conversations end to end, through a real collector: agents instrumented with `invokeAgent` (the
 * official OpenTelemetry exporter) hold conversations; bindings with `trigger: conversation` judge
 * each one once it is over — ended by its last turn or by the API, never waiting for the idle
 * window (an hour here) — again as revision 2 when it resumes, sampled by the conversation, and
 * skipped when its last turn failed unless the binding triggers on failure. The criteria judge is
 * shown every turn (the scripted model keeps what it was asked).
 */
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConversationSampled } from '../../collector/processor/evaluation/sampling.ts';
import type { ConversationWithInteractions, EvaluationRecord } from '../../src/model/records.ts';
import { createScriptedModel, TestKit, type ScriptedModel } from '../../src/testing/index.ts';
import { pollUntil } from '../helpers/poll.ts';

const CONFIG = `
processors:
  interactions:
    conversation_idle: 1h
  evaluation:
    evaluators:
      tool-call-required:
        tools: [ get_order ]
        agents:
          support-agent: { trigger: conversation }
          sampled-agent: { trigger: conversation, sampling-ratio: 0.5 }
          fragile-agent: { trigger: conversation }
          single-turn-agent: { trigger: interaction }
      reply-length:
        min-length: 1
        agents:
          fragile-agent: { trigger: conversation, trigger-on-failure: true }
      criteria-judge:
        criteria:
          - name: solved
            description: The agent told the customer where the order is
        agents:
          judged-agent: { trigger: conversation }
`;

let judgeModel: ScriptedModel;
let kit: TestKit;
beforeAll(async () => {
  judgeModel = await createScriptedModel();
  judgeModel.fixedResponse({
    toolUse: [{ name: 'record_verdict', input: { passed: true, reasoning: 'It found the order in turn 2.' } }],
  });
  kit = await TestKit.start({ additionalConfig: CONFIG, modelProviders: { judge: judgeModel } });
});
afterAll(async () => {
  await kit?.close();
  await judgeModel?.close();
});

/** One turn of `agentId` in a conversation: optionally a get_order tool call, a failure, the end. */
async function turn(
  agentId: string,
  conversationId: string,
  reply: string,
  options: { tool?: boolean; fail?: boolean; end?: boolean } = {},
): Promise<string> {
  let interactionId: string | undefined;
  try {
    ({ interactionId } = await kit.invokeAgent(
      { id: agentId, conversationId, endConversation: options.end === true, input: `question before: ${reply}` },
      async (invocation) => {
        interactionId = invocation.interactionId;
        if (options.tool) {
          const tool = trace.getTracer('conversations-e2e').startSpan('execute_tool get_order', {
            attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_order' },
          });
          tool.end();
        }
        if (options.fail) throw new Error('the model is down');
        return reply;
      },
    ));
  } catch (error) {
    if (!options.fail) throw error;
    await kit.flush();
  }
  return interactionId!;
}

async function conversation(conversationId: string, agentId: string): Promise<ConversationWithInteractions> {
  const response = await fetch(`${kit.apiUrl}/api/v1/conversations/${conversationId}?agent=${agentId}`);
  return (await response.json()) as ConversationWithInteractions;
}

async function evaluationsOf(conversationId: string, agentId: string): Promise<EvaluationRecord[]> {
  const response = await fetch(`${kit.apiUrl}/api/v1/conversations/${conversationId}/evaluations?agent=${agentId}`);
  return ((await response.json()) as { evaluations: EvaluationRecord[] }).evaluations;
}

describe('conversations through the collector', () => {
  // The conversation's second turn called the tool.
  it('passes tool-call-required once, at the explicit end of the conversation', async () => {
    const ids = [
      await turn('support-agent', 'c-tools', 'What is your order number?'),
      await turn('support-agent', 'c-tools', 'Order A-17 has shipped.', { tool: true }),
      await turn('support-agent', 'c-tools', 'Goodbye!', { end: true }),
    ];
    const [record] = await kit.awaitConversationEvaluations('c-tools', { atMost: '20s' });
    expect(record).toMatchObject({
      evaluatorId: 'tool-call-required',
      interactionId: ids[2],
      subject: { kind: 'conversation', conversationId: 'c-tools', agentId: 'support-agent', revision: 1 },
      outcome: {
        type: 'verdict',
        evaluation: { passed: true, explanation: 'called get_order in 3 turns (all required)' },
      },
    });
    // Judged per conversation only: none of its interactions was evaluated on its own.
    for (const id of ids) expect(await kit.ledger().getEvaluations(id)).toEqual([]);
    expect(await conversation('c-tools', 'support-agent')).toMatchObject({
      open: false,
      endReason: 'explicit',
      interactionIds: ids,
    });
    expect(await evaluationsOf('c-tools', 'support-agent')).toHaveLength(1);
  });

  it('evaluates a conversation ended through the API', async () => {
    await turn('support-agent', 'c-api', 'Let me check.', { tool: true });
    await turn('support-agent', 'c-api', 'It ships tomorrow.');
    await kit.endConversation('c-api');
    const [record] = await kit.awaitConversationEvaluations('c-api', { atMost: '20s' });
    expect(record.outcome).toMatchObject({ type: 'verdict', evaluation: { passed: true } });
    expect(await conversation('c-api', 'support-agent')).toMatchObject({
      open: false,
      endReason: 'explicit',
      turns: 2,
    });
    const refused = await fetch(`${kit.apiUrl}/api/v1/conversations/c-unknown/end`, { method: 'POST' });
    expect(refused.status).toBe(404);
  });

  it('evaluates a resumed conversation again as revision 2, keeping both revisions’ evaluations', async () => {
    await turn('support-agent', 'c-resume', 'How can I help?');
    await turn('support-agent', 'c-resume', 'Bye!', { end: true });
    const [first] = await kit.awaitConversationEvaluations('c-resume', { revision: 1, atMost: '20s' });
    expect(first.outcome).toMatchObject({ evaluation: { passed: false } });
    await turn('support-agent', 'c-resume', 'Found order A-17.', { tool: true });
    const last = await turn('support-agent', 'c-resume', 'Anything else? Bye.', { end: true });
    const both = await kit.awaitConversationEvaluations('c-resume', { count: 2, atMost: '20s' });
    expect(
      both.map((record) => [record.subject, record.outcome.type === 'verdict' && record.outcome.evaluation.passed]),
    ).toEqual([
      [{ kind: 'conversation', conversationId: 'c-resume', agentId: 'support-agent', revision: 1 }, false],
      [{ kind: 'conversation', conversationId: 'c-resume', agentId: 'support-agent', revision: 2 }, true],
    ]);
    expect(both[1].interactionId).toBe(last);
    expect(await evaluationsOf('c-resume', 'support-agent')).toEqual(both);
    expect(await conversation('c-resume', 'support-agent')).toMatchObject({ revision: 2, turns: 4, open: false });
  });

  it('samples a conversation once, by its key: its revisions agree', async () => {
    const ids = Array.from({ length: 10 }, (_, n) => `sampled-${n}`);
    for (const round of [1, 2]) for (const id of ids) await turn('sampled-agent', id, `round ${round}`, { end: true });
    const expected = ids.filter((id) => isConversationSampled(id, 'sampled-agent', 0.5));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(ids.length);
    for (const id of expected) await kit.awaitConversationEvaluations(id, { count: 2, atMost: '20s' });
    // Every revision is closed, and the evaluations are queued before the next is taken in: none is late.
    await kit.collector.evaluation.idle();
    for (const id of ids) {
      const revisions = (await evaluationsOf(id, 'sampled-agent')).map((r) => r.subject);
      expect(revisions.length, id).toBe(expected.includes(id) ? 2 : 0);
    }
  });

  it('leaves out a conversation whose last turn failed, unless the binding triggers on failure', async () => {
    await turn('fragile-agent', 'c-fail', 'Found it.', { tool: true });
    await turn('fragile-agent', 'c-fail', '', { fail: true, end: true });
    const [record] = await kit.awaitConversationEvaluations('c-fail', { atMost: '20s' });
    expect(record.evaluatorId).toBe('reply-length');
    await kit.collector.evaluation.idle();
    expect((await evaluationsOf('c-fail', 'fragile-agent')).map((r) => r.evaluatorId)).toEqual(['reply-length']);
    expect(await conversation('c-fail', 'fragile-agent')).toMatchObject({ failed: true, turns: 2 });
  });

  it('shows the criteria judge every turn of the conversation, in order', async () => {
    const replies = ['Which order?', 'Order A-17 is in Lisbon.', 'Happy to help, bye!'];
    for (const [index, reply] of replies.entries())
      await turn('judged-agent', 'c-judged', reply, { end: index === replies.length - 1 });
    const [record] = await kit.awaitConversationEvaluations('c-judged', { atMost: '20s' });
    expect(record).toMatchObject({ evaluatorId: 'criteria-judge', outcome: { evaluation: { passed: true } } });
    const request = await pollUntil(
      async () => judgeModel.requests.find((r) => String(r.body.messages[0].content).includes(replies[0])),
      { timeoutMs: 5_000, what: 'the judge request' },
    );
    const text = String(request.body.messages[0].content);
    const positions = replies.map((reply, index) => [text.indexOf(`turn ${index + 1} of 3`), text.indexOf(reply)]);
    for (const [marker, reply] of positions) {
      expect(marker).toBeGreaterThan(-1);
      expect(reply).toBeGreaterThan(marker);
    }
    expect(positions.map(([marker]) => marker)).toEqual([...positions.map(([marker]) => marker)].sort((a, b) => a - b));
  });
});
