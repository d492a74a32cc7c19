/**
 * A recorded conversation as a rehearsal scenario: the user's message of each turn, the agent's
 * recorded system prompt and model, recorded tools (repeats folded, changes kept, schemas
 * inferred), the room the script needs, and the header with the recorded verdicts.
 */
import { describe, expect, it } from 'vitest';
import type {
  ConversationWithInteractions,
  EvaluationRecord,
  InteractionRecord,
} from '../../../../src/model/records.ts';
import { rehearsalOf, scenarioName } from '../../../../src/simulation/rehearsal/conversation-scenario.ts';
import { recordedTurns, userMessageOf } from '../../../../src/simulation/rehearsal/recorded-messages.ts';
import { inferInputSchema, recordedToolsOf } from '../../../../src/simulation/rehearsal/recorded-tools.ts';
import { verdictLines } from '../../../../src/simulation/rehearsal/recorded-verdicts.ts';
import { RehearsalError } from '../../../../src/simulation/rehearsal/rehearsal-error.ts';
import { formatScenario } from '../../../../src/simulation/scenario/scenario-writer.ts';
import { parseScenario } from '../../../../src/simulation/scenario/scenario-loader.ts';
import { testInteractionRecord } from '../../../../src/testing/test-ledger-client.ts';

const turn = (index: number, question: string, overrides: Partial<InteractionRecord> = {}) =>
  testInteractionRecord({
    spanId: `b7ad6b716920333${index}`,
    conversationId: 'conv-1',
    input: [{ role: 'user', parts: [{ type: 'text', content: question }] }],
    ...overrides,
  });

const conversationOf = (interactions: InteractionRecord[]): ConversationWithInteractions => ({
  conversationId: 'conv-1',
  agentId: 'support-agent',
  revision: 1,
  interactionIds: interactions.map((record) => record.interactionId),
  startTime: '2026-01-01T10:00:00.000Z',
  lastActivityTime: '2026-01-01T10:05:00.000Z',
  open: false,
  failed: false,
  turns: interactions.length,
  interactions,
});

const criteria = [
  { name: 'ok', description: 'ok', criterionType: 'binary' as const, requireToolCall: false, weight: 1 },
];

describe("the user's messages", () => {
  it("takes each turn's last user input message, else the transcript's, and fails without one", () => {
    const history = turn(1, '', {
      input: [
        { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
        { role: 'user', parts: [{ type: 'text', content: 'Earlier question' }] },
        { role: 'assistant', parts: [{ type: 'text', content: 'Earlier answer' }] },
        {
          role: 'user',
          parts: [
            { type: 'text', content: 'New question' },
            { type: 'text', content: 'second line' },
          ],
        },
      ],
    });
    expect(userMessageOf(history, 1)).toBe('New question\nsecond line');
    const fromTranscript = turn(2, '', { input: [], transcript: [{ type: 'message', role: 'user', content: 'Hi' }] });
    expect(userMessageOf(fromTranscript, 2)).toBe('Hi');
    const uncaptured = turn(3, '', { input: [], transcript: [] });
    expect(() => recordedTurns(conversationOf([turn(1, 'Hello'), uncaptured]))).toThrow(
      new RehearsalError(
        `interaction ${uncaptured.interactionId} (turn 2) has no recorded user message (the agent's input was not ` +
          'captured: turn on content capture, see docs/instrumentation.md)',
      ),
    );
    expect(() => recordedTurns(conversationOf([]))).toThrow('has no interactions to rehearse');
  });
});

describe('recorded tools', () => {
  const call = (name: string, args: unknown, outcome: { result?: unknown; error?: string }) => ({
    name,
    arguments: args,
    ...outcome,
  });

  it('keeps one recording of a repeated call, every one of a call whose answer changed, in call order', () => {
    const { tools, skipped } = recordedToolsOf([
      turn(1, 'a', {
        toolCalls: [
          call('get_order', { orderId: 'A-17' }, { result: { status: 'shipped' } }),
          call('get_order', '{"orderId":"B-42"}', { result: { status: 'processing' } }),
        ],
      }),
      turn(2, 'b', {
        toolCalls: [
          call('get_order', { orderId: 'A-17' }, { result: { status: 'shipped' } }),
          call('get_order', { orderId: 'B-42' }, { result: { status: 'shipped' } }),
          call('refund', undefined, { error: 'not allowed' }),
          call('refund', 'not json', { result: 1 }),
          call('mcp.search', {}, { result: 1 }),
        ],
      }),
    ]);
    expect(tools).toEqual([
      {
        source: 'recorded',
        name: 'get_order',
        description: '',
        inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
        recordings: [
          { arguments: { orderId: 'A-17' }, result: { status: 'shipped' } },
          { arguments: { orderId: 'B-42' }, result: { status: 'processing' } },
          { arguments: { orderId: 'B-42' }, result: { status: 'shipped' } },
        ],
      },
      {
        source: 'recorded',
        name: 'refund',
        description: '',
        inputSchema: { type: 'object' },
        recordings: [{ arguments: {}, error: 'not allowed' }],
      },
    ]);
    expect(skipped).toEqual([
      'refund call in turn 2: its arguments are not a mapping ("not json")',
      'mcp.search call in turn 2: the name is not one the Messages API accepts',
    ]);
  });

  it('infers each argument type from the calls, and requires what every call gave', () => {
    expect(
      inferInputSchema([
        { id: 1, tags: ['a'], note: 'x' },
        { id: 'two', tags: [] },
      ]),
    ).toEqual({
      type: 'object',
      properties: { id: { type: ['number', 'string'] }, tags: { type: 'array' }, note: { type: 'string' } },
      required: ['id', 'tags'],
    });
    expect(inferInputSchema([{}, {}])).toEqual({ type: 'object' });
  });
});

describe('the rehearsal scenario', () => {
  it('scripts the user, runs the agent in process with its recorded prompt, model and tools', () => {
    const first = turn(1, 'Where is A-17?', {
      model: 'claude-prod',
      transcript: [
        { type: 'message', role: 'system', content: 'You are the support agent.' },
        { type: 'message', role: 'user', content: 'Where is A-17?' },
      ],
      toolCalls: [{ name: 'get_order', arguments: { orderId: 'A-17' }, result: 'shipped' }],
    });
    const { scenario, header } = rehearsalOf({
      conversation: conversationOf([first, turn(2, 'Thanks')]),
      criteria,
      criteriaSource: 'from criteria.yaml',
    });
    expect(scenario.participants).toEqual([
      { name: 'end_user', type: 'scripted', persona: '', goal: '', messages: ['Where is A-17?', 'Thanks'] },
      {
        name: 'agent',
        type: 'evaluated',
        persona: '',
        goal: '',
        model: 'claude-prod',
        systemPrompt: 'You are the support agent.',
        tools: [expect.objectContaining({ name: 'get_order' })],
      },
    ]);
    expect(scenario.maxTurns).toBe(20);
    expect(header).toEqual([
      'Rehearsal of conversation conv-1 of agent support-agent (2 turns),',
      'written by evalon scenario from-conversation; run it with evalon simulate.',
      'The user sends the recorded messages in order, one per turn, whatever the agent answers.',
      'The agent runs in process; its tools answer with the recorded results.',
      "Tool descriptions are not recorded: add them from the agent's code (description).",
      'eval_criteria: from criteria.yaml.',
      '',
      'recorded: no verdicts',
    ]);
    const text = formatScenario(scenario, { header });
    expect(parseScenario(text)).toEqual(scenario);
  });

  it('gives a long conversation room for every turn, and an agent without recorded calls no tools', () => {
    const turns = Array.from({ length: 25 }, (_, index) => turn(index, `question ${index}`));
    const { scenario } = rehearsalOf({ conversation: conversationOf(turns), criteria, criteriaSource: 'x' });
    expect(scenario.maxTurns).toBe(26);
    expect(scenario.participants[1].tools).toEqual([]);
    expect(formatScenario(scenario)).toContain('    tools: []\n');
  });

  it('points at a remote agent without in-process settings, or role-plays a derived user', () => {
    const conversation = conversationOf([turn(1, 'Hi', { model: 'claude-prod' })]);
    const remote = rehearsalOf({
      conversation,
      criteria,
      criteriaSource: 'x',
      agentEndpoint: 'http://127.0.0.1:8080',
      simulatedUser: { persona: 'You are Sam.', goal: 'Say hello.' },
    });
    expect(remote.scenario.participants).toEqual([
      { name: 'end_user', type: 'simulated', persona: 'You are Sam.', goal: 'Say hello.' },
      { name: 'agent', type: 'evaluated', persona: '', goal: '', endpoint: 'http://127.0.0.1:8080' },
    ]);
    expect(remote.header).toContain(
      'The agent is the remote agent at http://127.0.0.1:8080: it runs its own model and tools.',
    );
  });

  it('names the scenario after the agent and conversation, in characters a folder name takes', () => {
    expect(scenarioName({ ...conversationOf([]), agentId: 'support agent', conversationId: 'a/b:c' })).toBe(
      'support-agent-a-b-c',
    );
    expect(scenarioName({ ...conversationOf([]), agentId: '..', conversationId: '' })).toBe('rehearsal');
  });
});

describe('recorded verdicts', () => {
  const base = {
    evaluatorVersion: '1',
    agentId: 'support-agent',
    triggeredAt: '',
    startedAt: '',
    completedAt: '',
    attempts: 1,
  };
  it('lists conversation verdicts by revision, then turns, each on one line', () => {
    const records: EvaluationRecord[] = [
      {
        ...base,
        evaluationId: 'e1',
        interactionId: 'i2',
        evaluatorId: 'reply-length',
        outcome: { type: 'inconclusive', reason: 'no reply' },
      },
      {
        ...base,
        evaluationId: 'e2',
        interactionId: 'i2',
        evaluatorId: 'criteria-judge',
        shadow: true,
        outcome: {
          type: 'verdict',
          evaluation: { passed: true, explanation: `✓ a\n✓ ${'b'.repeat(300)}`, attributes: {} },
        },
        subject: { kind: 'conversation', conversationId: 'c', agentId: 'support-agent', revision: 2 },
      },
      {
        ...base,
        evaluationId: 'e3',
        interactionId: 'i1',
        evaluatorId: 'criteria-judge',
        outcome: { type: 'failed', error: 'model unavailable' },
        subject: { kind: 'conversation', conversationId: 'c', agentId: 'support-agent', revision: 1 },
      },
    ];
    const lines = verdictLines(records, ['i1', 'i2']);
    expect(lines[0]).toBe('recorded: criteria-judge revision 1: failed — "model unavailable"');
    expect(lines[1]).toMatch(/^recorded: criteria-judge revision 2: pass \(shadow\) — "✓ a; ✓ b+…"$/);
    expect(lines[1].length).toBeLessThan(260);
    expect(lines[2]).toBe('recorded: reply-length turn 2: inconclusive — "no reply"');
  });
});
