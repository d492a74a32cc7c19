/**
 * A scripted participant in a whole run: its messages arrive in order, one per turn, the agent
 * answers each, and the run ends normally after the agent's answer to the last one. No model call
 * plays it, and a recorded run replays to the same transcript.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JudgeTranscriptEntry } from '../../../../src/judge/transcript.ts';
import { SimpleAgentReply } from '../../../../src/simulation/agent/simple-agent.ts';
import { runScenario } from '../../../../src/simulation/run/run-scenario.ts';
import { parseScenario } from '../../../../src/simulation/scenario/scenario-loader.ts';
import { roleOf, startModel, type ModelFixture } from '../../../helpers/model-fixture.ts';

const scenario = (messages: string, extra = '') =>
  parseScenario(`name: scripted_fixture
description: fixture
participants:
  end_user:
    type: scripted
    messages: ${messages}
  agent: { type: evaluated }
conversations:
  - { name: chat, between: [end_user, agent], initiated_by: end_user }
eval_criteria:
  - ok
${extra}`);

/** The messages of a transcript as `sender: content`. */
const lines = (transcript: readonly JudgeTranscriptEntry[]) =>
  transcript.flatMap((entry) => (entry.type === 'message' ? [`${entry.sender}: ${entry.content}`] : []));

/** Answers the last message it was sent. */
const echo = {
  step(_respondIn: string, history: ReadonlyArray<{ sender: string; content: string }>) {
    return SimpleAgentReply.send(`answer to: ${history.at(-1)?.content ?? '(nothing)'}`);
  },
};

describe('scripted participant', () => {
  let model: ModelFixture;
  beforeAll(async () => {
    model = await startModel();
  });
  afterAll(() => model.close());
  beforeEach(() => {
    model.scripted.reset();
    model.route({});
  });

  it('sends its messages in order, one per turn, and ends after the answer to the last', async () => {
    const result = await runScenario(scenario('[Hello, Where is order A-17?, Thanks]'), {
      model: model.client,
      simpleAgent: echo,
      thinkingDelays: false,
    });
    expect(lines(result.transcript)).toEqual([
      'end_user: Hello',
      'agent: answer to: Hello',
      'end_user: Where is order A-17?',
      'agent: answer to: Where is order A-17?',
      'end_user: Thanks',
      'agent: answer to: Thanks',
      'end_user: [END]',
    ]);
    expect(result.endReason).toEqual({ type: 'end', participant: 'end_user', conversation: 'chat' });
    // Only the judge called the model: nobody role-played the scripted user.
    expect(model.scripted.requests.map(roleOf)).toEqual(['judge']);
    expect(result.passed).toBe(true);
  });

  it('ends the run as stalled when the agent stays silent, judged on what was said', async () => {
    const result = await runScenario(scenario('[Hello, Anyone there?]'), {
      model: model.client,
      simpleAgent: { step: () => SimpleAgentReply.send('') },
      thinkingDelays: false,
    });
    expect(lines(result.transcript)).toEqual(['end_user: Hello']);
    expect(result.endReason).toEqual({ type: 'stalled' });
  });

  it('stops at max_turns like any conversation, before the script is used up', async () => {
    const result = await runScenario(scenario('[one, two, three]', 'max_turns: 2'), {
      model: model.client,
      simpleAgent: echo,
      thinkingDelays: false,
    });
    expect(lines(result.transcript).map((line) => line.split(': ').slice(1).join(': '))).toEqual([
      'one',
      'answer to: one',
      'two',
      'answer to: two',
    ]);
    expect(result.endReason).toEqual({ type: 'max_turns', conversation: 'chat' });
  });

  it('replays a recorded run to the same transcript and verdict', async () => {
    const recorded = await runScenario(scenario('[Hello, Bye]'), {
      model: model.client,
      simpleAgent: echo,
      thinkingDelays: false,
    });
    const replayed = await runScenario(scenario('[Hello, Bye]'), {
      simpleAgent: echo,
      thinkingDelays: false,
      replay: recorded.recording,
    });
    expect(replayed.transcript).toEqual(recorded.transcript);
    expect(replayed.evaluation).toEqual(recorded.evaluation);
  });
});
