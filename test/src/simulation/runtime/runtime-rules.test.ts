import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  sendAction,
  type Agent,
  type HistoryEntry,
  type SimulationEvent,
} from '../../../../src/simulation/agent/agent.ts';
import { runScenario } from '../../../../src/simulation/run/run-scenario.ts';
import type { JudgeTranscriptEntry } from '../../../../src/judge/transcript.ts';
import { lastUserText, startModel, type ModelFixture } from '../../../helpers/model-fixture.ts';
import { assistScenario, chatScenario } from '../helpers/scenario-fixtures.ts';

const lines = (transcript: JudgeTranscriptEntry[]) =>
  transcript.map((entry) =>
    entry.type === 'message' ? `${entry.conversation}/${entry.sender}: ${entry.content}` : `${entry.type}`,
  );

describe('runtime rules', () => {
  let model: ModelFixture;
  beforeAll(async () => {
    model = await startModel();
  });
  afterAll(() => model.close());
  beforeEach(() => model.scripted.reset());

  const fast = { simulationTimeoutMs: 15_000, thinkingDelays: false } as const;
  const echo: Agent = {
    step: async (history, _events, _respondIn) => sendAction('agent', `echo ${history.length}`, [], undefined),
  };

  it('ends when one conversation reaches 2 × max_turns non-empty messages', async () => {
    model.route({ participant: () => 'more please' });
    const result = await runScenario(chatScenario('limit', 'max_turns: 2'), {
      model: model.client,
      ...fast,
      agent: echo,
    });
    expect(result.endReason).toEqual({ type: 'max_turns', conversation: 'chat' });
    expect(result.transcript.filter((entry) => entry.type === 'message')).toHaveLength(4);
  });

  it('records the text before a trailing [END], then [END]; [END] mid-text is just text', async () => {
    let turn = 0;
    model.route({ participant: () => (++turn === 1 ? 'Say [END] to me' : 'Thanks, bye! [END]') });
    const result = await runScenario(chatScenario(), { model: model.client, ...fast, agent: echo });
    expect(lines(result.transcript)).toEqual([
      'chat/end_user: Say [END] to me',
      'chat/agent: echo 1',
      'chat/end_user: Thanks, bye!',
      'chat/end_user: [END]',
    ]);
    expect(result.endReason).toMatchObject({ type: 'end', participant: 'end_user' });
  });

  it('neither records nor counts empty sends', async () => {
    let steps = 0;
    model.route({ participant: () => 'hi' });
    const agent: Agent = { step: async () => sendAction('agent', ++steps % 2 === 0 ? '' : 'reply') };
    const result = await runScenario(chatScenario('silence', 'max_turns: 1'), { model: model.client, ...fast, agent });
    expect(lines(result.transcript)).toEqual(['chat/end_user: hi', 'chat/agent: reply']);
    expect(result.endReason).toEqual({ type: 'max_turns', conversation: 'chat' });
  });

  it('records tool interactions before the message, tagged with the conversation', async () => {
    model.route({ participant: (request) => (lastUserText(request).includes('done') ? '[END]' : 'do it') });
    const interaction = {
      call: { toolName: 'lookup', arguments: { id: 1 } },
      result: { toolName: 'lookup', arguments: { id: 1 }, result: { ok: true } },
    };
    const agent: Agent = { step: async () => sendAction('agent', 'done', [interaction]) };
    const result = await runScenario(chatScenario(), { model: model.client, ...fast, agent });
    expect(result.transcript.slice(1, 4)).toEqual([
      { conversation: 'chat', type: 'tool_call', tool: 'lookup', arguments: { id: 1 } },
      { conversation: 'chat', type: 'tool_result', tool: 'lookup', arguments: { id: 1 }, result: { ok: true } },
      { conversation: 'chat', type: 'message', sender: 'agent', content: 'done' },
    ]);
  });

  it('lets an observing agent see the observed conversation as history and answer in its own', async () => {
    const histories: Array<{ history: HistoryEntry[]; respondIn: string }> = [];
    let userTurns = 0;
    model.route({
      participant: (request, name) => {
        if (name === 'end_user') return ++userTurns >= 3 ? '[END]' : `customer says ${userTurns}`;
        return lastUserText(request).includes('[agent]') ? '[NO_QUESTION]' : 'rep answers';
      },
    });
    const agent: Agent = {
      step: async (history, _events, respondIn) => {
        histories.push({ history: history.slice(), respondIn });
        return sendAction('agent', `guidance ${histories.length}`);
      },
    };
    const result = await runScenario(assistScenario(), { model: model.client, ...fast, agent });
    expect(histories[0].respondIn).toBe('agent_assist');
    expect(histories[0].history[0]).toMatchObject({
      type: 'turn',
      conversation: 'support_chat',
      sender: 'end_user',
      content: 'customer says 1',
    });
    // The agent never receives its own messages as observations, and the rep hears the agent in agent_assist.
    expect(
      histories.every(
        ({ history }) => history.filter((h) => h.type === 'turn' && h.sender === 'agent').length <= histories.length,
      ),
    ).toBe(true);
    expect(lines(result.transcript)).toContain('agent_assist/agent: guidance 1');
    expect(lines(result.transcript)).toContain('support_chat/representative: rep answers');
    expect(result.endReason).toMatchObject({ type: 'end', participant: 'end_user' });
  });

  it('answers messages that arrived while generating, once generation is done', async () => {
    // The rep is generating its answer to the customer when the agent's guidance arrives in
    // agent_assist; it must answer that afterwards (with the guidance in its history).
    const repRequests: string[] = [];
    let userTurns = 0;
    model.route({
      participant: (request, name) => {
        if (name === 'end_user') return ++userTurns >= 2 ? '[END]' : 'I want to cancel';
        repRequests.push(`${/"(\w+)" conversation/.exec(String(request.body.system))?.[1]}:${lastUserText(request)}`);
        return { text: 'ok', delayMs: 30 };
      },
    });
    const agent: Agent = { step: async () => sendAction('agent', 'offer a full refund') };
    await runScenario(assistScenario(), { model: model.client, ...fast, agent });
    expect(repRequests[0]).toBe('support_chat:[end_user]: I want to cancel');
    expect(repRequests).toContain('agent_assist:[agent]: offer a full refund');
  });

  it('records events emitted by an event source and delivers them to its observers', async () => {
    const scenario = chatScenario(
      'events',
      `event_sources:
  case_events:
    description: a case system
    emits:
      - event: case_created
        schema: { case_id: string }
observations:
  - participant: agent
    observes: [case_events]`,
    );
    const seenEvents: SimulationEvent[][] = [];
    let userTurns = 0;
    model.route({
      participant: () => (++userTurns >= 3 ? '[END]' : 'my order is broken'),
      event_source: () => '[{"name":"case_created","data":{"case_id":"C-1"}},{"name":"undeclared","data":{}}]',
    });
    const agent: Agent = {
      step: async (_history, events) => {
        seenEvents.push(events.slice());
        return sendAction('agent', events.length > 0 ? 'saw case' : 'hello');
      },
    };
    const result = await runScenario(scenario, { model: model.client, ...fast, agent });
    const events = result.transcript.filter((entry) => entry.type === 'event');
    expect(events).toEqual([{ type: 'event', name: 'case_created', data: { case_id: 'C-1' } }]);
    expect(seenEvents.flat()).toContainEqual({ name: 'case_created', data: { case_id: 'C-1' } });
  });

  it('runs custom participants and custom event sources implemented in code', async () => {
    const scenario = chatScenario(
      'custom',
      `event_sources:
  ticketing:
    type: custom
    description: ticket system`,
    );
    scenario.participants = scenario.participants.map((p) =>
      p.name === 'end_user' ? { ...p, type: 'custom' as const } : p,
    );
    let userTurns = 0;
    const result = await runScenario(scenario, {
      model: model.client,
      ...fast,
      agent: echo,
      customParticipants: {
        end_user: {
          step: async () => (++userTurns === 1 ? sendAction('end_user', 'scripted hello') : { type: 'end' }),
        },
      },
      eventSources: {
        ticketing: {
          onActivity: (entry) =>
            entry.type === 'message' && entry.sender === 'end_user'
              ? [{ name: 'ticket_opened', data: { by: entry.sender } }]
              : [],
        },
      },
    });
    expect(lines(result.transcript)).toEqual([
      'chat/end_user: scripted hello',
      'chat/agent: echo 1',
      'event',
      'chat/end_user: [END]',
    ]);
    expect(model.scripted.requests.filter((r) => String(r.body.system).includes('Your name/role'))).toHaveLength(0);
  });

  it('fails up front when a custom event source has no implementation', async () => {
    const scenario = chatScenario('nocustom', 'event_sources:\n  ticketing: { type: custom }');
    await expect(runScenario(scenario, { model: model.client, ...fast, agent: echo })).rejects.toThrow(
      'event_sources.ticketing: type custom needs an implementation',
    );
  });

  it('follows up proactively once in a conversation where the participant spoke last', async () => {
    // The rep answers the customer and goes idle; then the agent's guidance arrives in
    // agent_assist. After answering it, the rep is nudged to follow up with the customer, where it
    // spoke last.
    const repTurns: string[] = [];
    let userTurns = 0;
    model.route({
      participant: (request, name) => {
        const last = lastUserText(request);
        if (name === 'end_user')
          return ++userTurns === 1 ? 'I want to cancel' : last.includes('Good news') ? '[END]' : '';
        const conversation = /"(\w+)" conversation/.exec(String(request.body.system))?.[1] ?? '';
        repTurns.push(`${conversation}: ${last}`);
        if (conversation === 'agent_assist') return 'Understood.';
        return last.includes("It's your turn") ? 'Good news: it is cancelled.' : 'Let me check.';
      },
    });
    // The agent guides only once it has observed the rep's answer, so the rep is idle by then.
    let guided = false;
    const agent: Agent = {
      step: async (history) => {
        const repAnswered = history.some((entry) => entry.type === 'turn' && entry.sender === 'representative');
        if (!repAnswered || guided) return sendAction('agent', '');
        guided = true;
        return sendAction('agent', 'Offer a full refund.');
      },
    };
    const result = await runScenario(assistScenario(), { model: model.client, ...fast, agent });
    expect(repTurns).toEqual([
      'support_chat: [end_user]: I want to cancel',
      'agent_assist: [agent]: Offer a full refund.',
      "support_chat: [system]: It's your turn to respond.",
    ]);
    expect(lines(result.transcript)).toContain('support_chat/representative: Good news: it is cancelled.');
  });
});
