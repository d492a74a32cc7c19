/**
 * The built-in evaluators on a whole conversation, through the evaluator test kit as the
 * collector runs them: `tool-call-required` passes when any turn called the tools, the reply
 * checks read the last turn's reply, and the LLM judges (the real Anthropic SDK against the
 * scripted model) are shown every turn, in order, each headed with its interaction — a long
 * conversation shortened by leaving whole early turns out.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CONVERSATION_CRITERIA_PREAMBLE,
  createCriteriaJudgeEvaluator,
} from '../../../collector/evaluators/criteria-judge.ts';
import {
  containsEvaluator,
  replyLengthEvaluator,
  toolCallRequiredEvaluator,
} from '../../../collector/evaluators/index.ts';
import { CONVERSATION_RUBRIC_PREAMBLE, createLlmJudgeEvaluator } from '../../../collector/evaluators/llm-judge.ts';
import type { EvaluatorDefinition } from '../../../src/evaluation/index.ts';
import { effects, Subject } from '../../../src/evaluation/index.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { EvaluatorTestKit, TestLedgerClient, testInteractionRecord } from '../../../src/testing/index.ts';
import { createScriptedModel, type RecordedRequest, type ScriptedModel } from '../../../src/testing/scripted-model.ts';

let scripted: ScriptedModel;
beforeAll(async () => {
  scripted = await createScriptedModel();
});
afterAll(() => scripted.close());
beforeEach(() => scripted.reset());

/** Three turns of conversation conv-7; only the second calls a tool. */
function conversation(): InteractionRecord[] {
  const turn = (n: number, question: string, answer: string, extra: Partial<InteractionRecord> = {}) =>
    testInteractionRecord({
      traceId: `${n}`.repeat(32),
      spanId: `${n}`.repeat(16),
      conversationId: 'conv-7',
      startTime: `2026-01-01T10:0${n}:00.000Z`,
      endTime: `2026-01-01T10:0${n}:01.000Z`,
      input: [{ role: 'user', parts: [{ type: 'text', content: question }] }],
      transcript: [
        { type: 'message', role: 'user', content: question },
        { type: 'message', role: 'assistant', content: answer },
      ],
      finalResponseText: answer,
      ...extra,
    });
  return [
    turn(1, 'Hi, my parcel is late.', 'Sorry to hear that! What is your order number?'),
    turn(2, 'It is A-17.', 'Order A-17 shipped with UPS and arrives Thursday.', {
      toolCalls: [{ name: 'get_order', arguments: { id: 'A-17' }, result: { status: 'shipped' } }],
    }),
    turn(3, 'Thanks, bye!', 'Bye'),
  ];
}

async function evaluate(definition: EvaluatorDefinition, config: Record<string, unknown>) {
  const turns = conversation();
  const ledger = TestLedgerClient.create().seed(turns);
  const subject = Subject.conversation(
    'conv-7',
    'support-agent',
    turns.map((t) => t.interactionId),
  );
  return EvaluatorTestKit.of(definition).withLedger(ledger).withConfig(config).evaluate(subject);
}

const judgeEnv = () => ({ ANTHROPIC_BASE_URL: `${scripted.baseURL}/bedrock`, ANTHROPIC_API_KEY: 'test-key' });
const userText = (request: RecordedRequest): string => String(request.body.messages[0].content);

describe('built-in evaluators on a conversation', () => {
  it('declare that they judge conversations', () => {
    for (const definition of [toolCallRequiredEvaluator, replyLengthEvaluator, containsEvaluator])
      expect(definition.subjects, definition.id).toEqual(['interaction', 'conversation']);
  });

  it('tool-call-required passes when one turn of the conversation called the tool', async () => {
    const result = await evaluate(toolCallRequiredEvaluator, { tools: ['get_order'] });
    expect(result.getEvaluation()).toMatchObject({
      passed: true,
      explanation: 'called get_order in 3 turns (all required)',
    });
    const missing = await evaluate(toolCallRequiredEvaluator, { tools: ['refund_order'] });
    expect(missing.getEvaluation().passed).toBe(false);
  });

  it('reply-length and contains read the reply of the last turn', async () => {
    const short = await evaluate(replyLengthEvaluator, { 'min-length': 10 });
    expect(short.getEvaluation()).toMatchObject({ passed: false, explanation: 'reply of 3 characters, minimum 10' });
    const bye = await evaluate(containsEvaluator, { values: ['bye'] });
    expect(bye.getEvaluation().passed).toBe(true);
  });

  it('shows llm-judge every turn in order, headed with its interaction, and says it is a conversation', async () => {
    scripted.respondWith(() => ({
      toolUse: [{ name: 'record_verdict', input: { passed: true, score: 0.9, explanation: 'Solved in 3 turns.' } }],
    }));
    const result = await evaluate(createLlmJudgeEvaluator({ env: judgeEnv(), client: { retryBaseMs: 1 } }), {
      rubric: 'The agent solves the problem without asking twice.',
    });
    expect(result.getEvaluation()).toMatchObject({ passed: true, explanation: 'Solved in 3 turns.' });
    const [request] = scripted.requests;
    expect(String(request.body.system)).toContain(CONVERSATION_RUBRIC_PREAMBLE);
    const text = userText(request);
    const turns = conversation();
    const positions = turns.map((turn, index) => text.indexOf(`[turn ${index + 1} of 3] ${turn.interactionId}\n`));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    for (const [index, turn] of turns.entries()) {
      const start = positions[index];
      const end = positions[index + 1] ?? text.length;
      expect(text.slice(start, end)).toContain(turn.finalResponseText);
    }
  });

  it('criteria-judge is shown every turn for each criterion, and counts a tool call of any turn', async () => {
    scripted.respondWith(() => ({
      toolUse: [{ name: 'record_verdict', input: { passed: true, reasoning: 'Looked it up in turn 2.' } }],
    }));
    const definition = createCriteriaJudgeEvaluator({ env: judgeEnv(), client: { retryBaseMs: 1 } });
    const result = await evaluate(definition, {
      criteria: [
        { name: 'looked-up', description: 'The agent looked the order up', require_tool_call: 'get_order' },
        { name: 'once', description: 'The agent asked for the order number once' },
      ],
    });
    expect(result.getEvaluation()).toMatchObject({ passed: true, attributes: { criteria_passed: 2 } });
    expect(scripted.requests).toHaveLength(2);
    for (const request of scripted.requests) {
      expect(String(request.body.system)).toContain(CONVERSATION_CRITERIA_PREAMBLE);
      for (const [index, turn] of conversation().entries()) {
        expect(userText(request)).toContain(`[turn ${index + 1} of 3] ${turn.interactionId}\n`);
        expect(userText(request)).toContain(turn.finalResponseText);
      }
    }
  });
});

describe('a long conversation before an LLM judge', () => {
  it('is shortened by leaving whole early turns out, keeping the first and the last', async () => {
    const long = 'The parcel story goes on and on. '.repeat(60);
    const turns = Array.from({ length: 30 }, (_, index) =>
      testInteractionRecord({
        traceId: (index + 10).toString(16).padStart(32, '0'),
        spanId: (index + 10).toString(16).padStart(16, '0'),
        conversationId: 'conv-long',
        startTime: new Date(Date.UTC(2026, 0, 1, 10, index)).toISOString(),
        endTime: new Date(Date.UTC(2026, 0, 1, 10, index, 30)).toISOString(),
        transcript: [
          { type: 'message', role: 'user', content: `Question ${index + 1}: ${long}` },
          { type: 'message', role: 'assistant', content: `Answer ${index + 1}.` },
        ],
        finalResponseText: `Answer ${index + 1}.`,
      }),
    );
    scripted.respondWith(() => ({
      toolUse: [{ name: 'record_verdict', input: { passed: true, score: 1, explanation: 'Fine.' } }],
    }));
    const result = await EvaluatorTestKit.of(createLlmJudgeEvaluator({ env: judgeEnv(), client: { retryBaseMs: 1 } }))
      .withLedger(TestLedgerClient.create().seed(turns))
      .withConfig({ rubric: 'The agent stays polite.', max_input_tokens: 4_000 })
      .evaluate(
        Subject.conversation(
          'conv-long',
          'support-agent',
          turns.map((turn) => turn.interactionId),
        ),
      );
    const text = userText(scripted.requests[0]);
    expect(text).toContain(`[turn 1 of 30] ${turns[0].interactionId}`);
    expect(text).toContain(`[turn 30 of 30] ${turns[29].interactionId}`);
    expect(text).toContain('Answer 30.');
    expect(text).toMatch(/\[turns 2–\d+ omitted: /);
    expect(text).not.toContain(`[turn 2 of 30]`);
    const omitted = result.getEvaluation().attributes['evalon.judge.transcript.omitted_chars'];
    expect(omitted).toBeGreaterThan(0);
  });
});

describe('the evaluator test kit with conversations', () => {
  it('gives the conversation subject and reads the conversation given to seed() in order of start time', async () => {
    const turns = conversation();
    const ledger = TestLedgerClient.create().seed([turns[2], turns[0], turns[1]]);
    const seen: unknown[] = [];
    const result = await EvaluatorTestKit.of(() => ({
      async evaluate(context) {
        seen.push(context.subject, await context.ledger.getConversation('conv-7', 'support-agent'));
        return effects.inconclusive('seen');
      },
    }))
      .withLedger(ledger)
      .evaluate(
        Subject.conversation(
          'conv-7',
          'support-agent',
          turns.map((t) => t.interactionId),
          2,
        ),
      );
    expect(result.getInconclusiveReason()).toBe('seen');
    expect(seen[0]).toEqual({
      kind: 'conversation',
      conversationId: 'conv-7',
      agentId: 'support-agent',
      revision: 2,
      interactionIds: turns.map((t) => t.interactionId),
      interactionId: turns[2].interactionId,
    });
    expect(seen[1]).toMatchObject({
      conversationId: 'conv-7',
      agentId: 'support-agent',
      interactionIds: turns.map((t) => t.interactionId),
      turns: 3,
      open: true,
      failed: false,
    });
    await expect(ledger.getConversation('conv-8', 'support-agent')).rejects.toThrow(
      'ledger: conversation conv-8 of agent support-agent not found',
    );
  });

  it('returns a seeded conversation as given, revision by revision', async () => {
    const turns = conversation();
    const first = await TestLedgerClient.create().seed(turns.slice(0, 2)).getConversation('conv-7', 'support-agent');
    const ledger = TestLedgerClient.create().seed({ ...first, revision: 1, open: false, endReason: 'explicit' });
    expect(await ledger.getConversation('conv-7', 'support-agent', { revision: 1 })).toMatchObject({
      revision: 1,
      open: false,
      turns: 2,
    });
    await expect(ledger.getConversation('conv-7', 'support-agent', { revision: 2 })).rejects.toThrow(
      'ledger: conversation conv-7 of agent support-agent (revision 2, over) not found',
    );
  });
});
