/**
 * The simulation's criteria judge reads the rehearsal within the same input budget as the
 * collector's judges: the scenario's `eval_max_input_tokens` (or the run's `judgeMaxInputTokens`),
 * the simulated users' messages kept whole, a refusal as too long answered once at half the
 * budget — and a recorded run with that refusal replays to the same verdict.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHARS_PER_TOKEN, requestChars } from '../../../../src/judge/input-budget.ts';
import type { ModelRequest } from '../../../../src/judge/model-client.ts';
import { runScenario } from '../../../../src/simulation/run/run-scenario.ts';
import { ScenarioError } from '../../../../src/simulation/scenario/scenario-error.ts';
import { promptTooLongReply, type RecordedRequest } from '../../../../src/testing/scripted-model.ts';
import { lastUserText, PASS_VERDICT, roleOf, startModel, type ModelFixture } from '../../../helpers/model-fixture.ts';
import { chatScenario } from '../helpers/scenario-fixtures.ts';

const LONG_REPLY = `Here is everything about your flight: ${'AA123 is delayed by two hours. '.repeat(1_500)}`;
const FINAL_REPLY = 'You are rebooked on AA124, leaving at 18:05.';

describe('the simulation’s criteria judge within its input budget', () => {
  let model: ModelFixture;
  let judgeReplies: Array<ReturnType<typeof promptTooLongReply> | string>;
  beforeAll(async () => {
    model = await startModel();
  });
  afterAll(() => model.close());
  beforeEach(() => {
    model.scripted.reset();
    judgeReplies = [];
    let userTurns = 0;
    let agentTurns = 0;
    model.route({
      participant: () =>
        ++userTurns === 1
          ? 'My flight AA123 is delayed, what now?'
          : userTurns === 2
            ? 'Can you rebook me?'
            : 'Thanks. [END]',
      agent: () => (++agentTurns === 1 ? LONG_REPLY : FINAL_REPLY),
      judge: () => judgeReplies.shift() ?? PASS_VERDICT,
    });
  });

  const judgeRequests = (): RecordedRequest[] => model.scripted.requests.filter((r) => roleOf(r) === 'judge');

  it('shortens the agent’s long reply to fit eval_max_input_tokens, keeping the users’ messages', async () => {
    const scenario = chatScenario('budget_fixture', 'eval_max_input_tokens: 3000');
    expect(scenario.evalMaxInputTokens).toBe(3_000);
    const result = await runScenario(scenario, { model: model.client, thinkingDelays: false });
    const [request] = judgeRequests();
    expect(requestChars(request.body as ModelRequest)).toBeLessThanOrEqual(3_000 * CHARS_PER_TOKEN);
    const prompt = lastUserText(request);
    expect(prompt).toContain('[end_user] (chat): "My flight AA123 is delayed, what now?"');
    expect(prompt).toContain('[end_user] (chat): "Can you rebook me?"');
    expect(prompt).toContain(`[agent] (chat): "${FINAL_REPLY}"`);
    expect(prompt).toMatch(
      /\[agent\] \(chat\): "Here is everything about your flight: AA123.*…\[[\d,]+ characters omitted\]…/,
    );
    expect(prompt).toMatch(/^Note: this transcript was shortened to fit the judge's input budget/m);
    expect(result.evaluation.omittedChars).toBeGreaterThan(40_000);
    expect(result.evaluation.criteria[0].omittedChars).toBe(result.evaluation.omittedChars);
    expect(result.passed).toBe(true);
  });

  it('lets the run override the scenario’s budget, and reads a short rehearsal whole', async () => {
    const scenario = chatScenario('budget_fixture', 'eval_max_input_tokens: 3000');
    const result = await runScenario(scenario, {
      model: model.client,
      thinkingDelays: false,
      judgeMaxInputTokens: 100_000,
    });
    expect(result.evaluation.omittedChars).toBe(0);
    expect(lastUserText(judgeRequests()[0])).toContain(`"${LONG_REPLY}"`);
  });

  it('answers a refusal as too long once at half the budget; a recording of it replays the same verdict', async () => {
    judgeReplies.push(promptTooLongReply());
    const scenario = chatScenario('budget_fixture', 'eval_max_input_tokens: 6000');
    const recorded = await runScenario(scenario, { model: model.client, thinkingDelays: false });
    const [refused, halved] = judgeRequests().map((request) => requestChars(request.body as ModelRequest));
    expect(judgeRequests()).toHaveLength(2);
    expect(refused).toBeLessThanOrEqual(6_000 * CHARS_PER_TOKEN);
    expect(halved).toBeLessThan(refused);
    expect(halved).toBeLessThanOrEqual(3_000 * CHARS_PER_TOKEN);
    expect(recorded.evaluation.criteria[0]).toMatchObject({ outcome: 'judged', passed: true });

    const replayed = await runScenario(scenario, { replay: recorded.recording, thinkingDelays: false });
    expect(replayed.transcript).toEqual(recorded.transcript);
    expect(replayed.evaluation).toEqual(recorded.evaluation);
  });

  it('fails the criterion, naming the sizes, when the model refuses the halved request too', async () => {
    judgeReplies.push(promptTooLongReply(), promptTooLongReply());
    const result = await runScenario(chatScenario('budget_fixture', 'eval_max_input_tokens: 6000'), {
      model: model.client,
      thinkingDelays: false,
    });
    expect(result.evaluation.criteria[0]).toMatchObject({ outcome: 'judge_error', passed: false });
    expect(result.evaluation.criteria[0].reasoning).toMatch(
      new RegExp(
        /judge input too long for the model: refused at [\d,]+ characters \(~[\d,]+ tokens estimated\) /.source +
          /within max_input_tokens 6,000, and again at [\d,]+ characters .* within half of it \(3,000\)/.source,
      ),
    );
  });

  it('rejects an eval_max_input_tokens below the minimum, naming the key', () => {
    expect(() => chatScenario('budget_fixture', 'eval_max_input_tokens: 10')).toThrow(ScenarioError);
    expect(() => chatScenario('budget_fixture', 'eval_max_input_tokens: 10')).toThrow(/eval_max_input_tokens/);
  });
});
