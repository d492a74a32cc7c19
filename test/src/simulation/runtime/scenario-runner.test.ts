import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { END_ACTION, sendAction, type Agent } from '../../../../src/simulation/agent/agent.ts';
import { SimpleAgentReply, type HistoryTurn } from '../../../../src/simulation/agent/simple-agent.ts';
import { createSimulationRunner } from '../../../../src/simulation/run/simulation-runner.ts';
import { runScenario } from '../../../../src/simulation/run/run-scenario.ts';
import { AgentStepFailedError, SimulationFailedError } from '../../../../src/simulation/runtime/simulation-errors.ts';
import {
  isEventSource,
  isRolePlay,
  lastUserText,
  startModel,
  withFaults,
  type ModelFixture,
} from '../../../helpers/model-fixture.ts';
import { chatScenario } from '../helpers/scenario-fixtures.ts';

describe('scenario runner (the reference runner tests)', () => {
  let model: ModelFixture;
  beforeAll(async () => {
    model = await startModel();
  });
  afterAll(() => model.close());
  beforeEach(() => {
    model.scripted.reset();
    model.route({});
  });

  const fast = { simulationTimeoutMs: 15_000, thinkingDelays: false } as const;

  it('runs two scenarios one after the other on one runner', async () => {
    const runner = createSimulationRunner({ model: model.client, ...fast });
    const one = await runner.run(chatScenario('one'));
    const two = await runner.run(chatScenario('two'));
    expect([one.scenarioName, two.scenarioName]).toEqual(['one', 'two']);
    expect(one.evaluation.summary).toBe('ok');
    expect(two.evaluation.summary).toBe('ok');
    expect(one.endReason).toEqual({ type: 'end', participant: 'end_user', conversation: 'chat' });
    expect(one.passed).toBe(true);
  });

  it('records a code agent reply with its trace in the transcript', async () => {
    model.route({
      participant: (request) =>
        lastUserText(request).includes('hello') ? 'thanks [END]' : 'I need help with my order.',
    });
    const result = await runScenario(chatScenario(), {
      model: model.client,
      ...fast,
      simpleAgent: { step: () => SimpleAgentReply.send('hello', '{"intent":"greet"}') },
    });
    const reply = result.transcript.find((entry) => entry.type === 'message' && entry.sender === 'agent');
    expect(reply).toMatchObject({ type: 'message', content: 'hello', trace: { intent: 'greet' } });
    expect(JSON.parse(JSON.stringify(reply)).trace.intent).toBe('greet');
  });

  it('hands a turn trace to a code agent as compact JSON', async () => {
    const seen: HistoryTurn[][] = [];
    let calls = 0;
    model.route({
      participant: (request) => (lastUserText(request).includes('second') ? '[END]' : 'I need help with my order.'),
    });
    await runScenario(chatScenario(), {
      model: model.client,
      ...fast,
      simpleAgent: {
        step(_respondIn, history) {
          seen.push(history.slice());
          calls++;
          return calls === 1 ? SimpleAgentReply.send('first', '{ "k" : "v" }') : SimpleAgentReply.send('second');
        },
      },
    });
    // The user only ends after "second": the second step saw the first reply with its trace.
    const second = seen[1] ?? [];
    expect(second.find((turn) => turn.sender === 'agent')?.trace).toBe('{"k":"v"}');
  });

  it('fails the step when a reply trace is not JSON', async () => {
    model.route({ participant: () => 'I need help with my order.' });
    const error = await runScenario(chatScenario(), {
      model: model.client,
      ...fast,
      simpleAgent: { step: () => SimpleAgentReply.send('hello', 'not-json') },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentStepFailedError);
    expect((error as Error).cause).toMatchObject({ name: 'InvalidTraceError' });
  });

  it.each([
    ['returns null', () => null, TypeError, 'no reply'],
    [
      'throws',
      () => {
        throw new Error('boom');
      },
      Error,
      'boom',
    ],
    ['rejects', () => Promise.reject(new Error('boom')), Error, 'boom'],
  ])('fails with AgentStepFailedError when a code agent step %s', async (_what, step, causeType, causeText) => {
    model.route({ participant: () => 'I need help with my order.' });
    const error = await runScenario(chatScenario(), {
      model: model.client,
      ...fast,
      simpleAgent: { step: step as never },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentStepFailedError);
    expect((error as AgentStepFailedError).participant).toBe('agent');
    expect((error as Error).cause).toBeInstanceOf(causeType);
    expect(((error as Error).cause as Error).message).toContain(causeText);
    expect((error as AgentStepFailedError).partialTranscript[0]).toMatchObject({
      sender: 'end_user',
      content: 'I need help with my order.',
    });
  });

  it('records a reply and then ends when the code agent says end', async () => {
    let calls = 0;
    model.route({ participant: () => 'I need help with my order.' });
    const result = await runScenario(chatScenario(), {
      model: model.client,
      ...fast,
      simpleAgent: {
        step: () => (++calls === 1 ? SimpleAgentReply.send('Here is your answer.') : SimpleAgentReply.end()),
      },
    });
    expect(result.evaluation.summary).toBe('ok');
    expect(result.transcript).toContainEqual({
      conversation: 'chat',
      type: 'message',
      sender: 'agent',
      content: 'Here is your answer.',
    });
    expect(result.endReason).toMatchObject({ type: 'end', participant: 'agent' });
  });

  it('treats an empty send as silence, not a failure (the run stalls and is judged)', async () => {
    model.route({ participant: () => 'I need help with my order.' });
    const result = await runScenario(chatScenario(), {
      model: model.client,
      ...fast,
      simpleAgent: { step: () => SimpleAgentReply.send('') },
    });
    expect(result.endReason).toEqual({ type: 'stalled' });
    expect(result.transcript.filter((entry) => entry.type === 'message' && entry.sender === 'agent')).toHaveLength(0);
  });

  it.each([
    ['rejects', 'reject', Error, 'llm down'],
    ['throws synchronously', 'throw', Error, 'llm down'],
    ['returns nothing', 'null', TypeError, 'no response'],
  ] as const)(
    'fails with SimulationFailedError naming the participant whose model %s',
    async (_what, fault, causeType, causeText) => {
      const client = withFaults(model.client, (request) => (isRolePlay(request) ? fault : undefined));
      const error = await runScenario(chatScenario(), { model: client, ...fast }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SimulationFailedError);
      expect((error as SimulationFailedError).participant).toBe('end_user');
      expect((error as Error).cause).toBeInstanceOf(causeType);
      expect(((error as Error).cause as Error).message).toContain(causeText);
    },
  );

  it('fails with the event source name when its model fails while the others keep talking', async () => {
    const scenario = chatScenario(
      'with_source',
      `event_sources:
  case_events:
    description: a case system
    emits:
      - event: case_created
        schema: { case_id: string }`,
    );
    const client = withFaults(
      model.client,
      (request) => (isEventSource(request) ? 'reject' : undefined),
      'event source down',
    );
    model.route({ participant: () => 'I need help with my order.' });
    const error = await runScenario(scenario, { model: client, ...fast }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimulationFailedError);
    expect((error as SimulationFailedError).participant).toBe('case_events');
    expect(((error as Error).cause as Error).message).toBe('event source down');
  });

  it.each([
    [
      'throws synchronously',
      (() => {
        throw new Error('sync boom');
      }) as Agent['step'],
      'sync boom',
    ],
    ['returns a null promise', (() => null) as unknown as Agent['step'], 'no action'],
    ['resolves to a null action', (() => Promise.resolve(null)) as unknown as Agent['step'], 'no action'],
  ])('fails with AgentStepFailedError when a raw agent %s', async (_what, step, causeText) => {
    model.route({ participant: () => 'I need help with my order.' });
    const error = await runScenario(chatScenario(), { model: model.client, ...fast, agent: { step } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentStepFailedError);
    expect(((error as Error).cause as Error).message).toContain(causeText);
  });

  it('runs a raw agent that replies and ends', async () => {
    let calls = 0;
    model.route({ participant: () => 'Hello?' });
    const agent: Agent = { step: async () => (++calls === 1 ? sendAction('agent', 'Hi!') : END_ACTION) };
    const result = await runScenario(chatScenario(), { model: model.client, ...fast, agent });
    expect(
      result.transcript.map((entry) => (entry.type === 'message' ? `${entry.sender}: ${entry.content}` : entry.type)),
    ).toEqual(['end_user: Hello?', 'agent: Hi!', 'end_user: Hello?', 'agent: [END]']);
  });
});
