/**
 * The integration harness with a plain evaluator: the built-in `llm-judge` bound to the agent in
 * additional config, a scripted model for the agent and one for the judge, an instrumented agent
 * called through the kit, the verdict read from the kit's ledger.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createScriptedModel, TestKit, TestKitError, type ScriptedModel } from '../../../src/testing/index.ts';

const ADDITIONAL_CONFIG = `
processors:
  evaluation:
    evaluators:
      llm-judge:
        rubric: The reply suggests one specific activity.
        agents:
          activity-agent: { trigger: interaction }
`;

let agentModel: ScriptedModel;
let judgeModel: ScriptedModel;
let kit: TestKit;
const envBefore = process.env.ANTHROPIC_BASE_URL;

beforeAll(async () => {
  agentModel = await createScriptedModel();
  judgeModel = await createScriptedModel();
  kit = await TestKit.start({
    additionalConfig: ADDITIONAL_CONFIG,
    modelProviders: { agent: agentModel, judges: { 'llm-judge': judgeModel } },
  });
});
afterAll(async () => {
  await kit?.close();
  await agentModel?.close();
  await judgeModel?.close();
});

/** The agent under test: one model call inside the kit's `invoke_agent` span. */
async function askActivityAgent(question: string) {
  const client = kit.agentClient();
  return kit.invokeAgent({ id: 'activity-agent', input: question }, async () => {
    const message = await client.messages.create({
      model: 'claude-test',
      max_tokens: 256,
      messages: [{ role: 'user', content: question }],
    });
    return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  });
}

it('records the verdict of the judge bound to the agent, from the judge scripted model', async () => {
  agentModel.fixedResponse('Try the hiking trail by the lake.');
  judgeModel.fixedResponse({
    toolUse: [
      {
        name: 'record_verdict',
        input: { passed: true, score: 0.9, label: 'good', explanation: 'relevant and specific' },
      },
    ],
  });

  const reply = await askActivityAgent('What can I do this weekend?');
  expect(reply.result).toBe('Try the hiking trail by the lake.');

  const [record] = await kit.awaitEvaluations(reply.interactionId, { atMost: '30s' });
  expect(record.evaluatorId).toBe('llm-judge');
  expect(record.agentId).toBe('activity-agent');
  if (record.outcome.type !== 'verdict') throw new Error(`expected a verdict, got ${JSON.stringify(record.outcome)}`);
  expect(record.outcome.evaluation.passed).toBe(true);
  expect(record.outcome.evaluation.score).toBe(0.9);
  expect(record.outcome.evaluation.explanation).toBe('relevant and specific');

  // The judge read the agent's conversation, through its own model; the agent called its own.
  expect(judgeModel.requests).toHaveLength(1);
  expect(JSON.stringify(judgeModel.requests[0].body.messages)).toContain('Try the hiking trail by the lake.');
  expect(agentModel.requests).toHaveLength(1);
  const interaction = await kit.ledger().getInteraction(reply.interactionId);
  expect(interaction.finalResponseText).toBe('Try the hiking trail by the lake.');
});

it('points judges at their models without changing the process environment', () => {
  // Only modelProviders.judge (for evaluators from modules) sets ANTHROPIC_BASE_URL, and close restores it.
  expect(process.env.ANTHROPIC_BASE_URL).toBe(envBefore);
});

it('says why when no evaluation is recorded in time', async () => {
  const error = await kit
    .awaitEvaluations('0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331', { atMost: 100 })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TestKitError);
  expect((error as Error).message).toMatch(
    /the interaction is not recorded: did its spans reach http:\/\/127\.0\.0\.1:\d+\/v1\/traces\?/,
  );
});

it('sets the judge model environment for evaluators from modules only while the kit runs', async () => {
  // This file's kit is running (without modelProviders.judge); a second collector is fine without telemetry.
  const other = await TestKit.start({ modelProviders: { judge: judgeModel }, registerTelemetry: false });
  expect(process.env.ANTHROPIC_BASE_URL).toBe(judgeModel.baseURL);
  await other.close();
  await other.close();
  expect(process.env.ANTHROPIC_BASE_URL).toBe(envBefore);
});

it('refuses to start with evaluator properties the evaluator does not take, naming the file and line', async () => {
  const error = await TestKit.start({
    additionalConfig: [
      'processors:',
      '  evaluation:',
      '    evaluators:',
      '      regex:',
      '        agents:',
      '          activity-agent: { trigger: interaction, flags: i }',
      '',
    ].join('\n'),
    registerTelemetry: false,
  }).catch((e: unknown) => e);
  expect((error as Error).name).toBe('ConfigError');
  expect((error as Error).message).toMatch(
    new RegExp(
      'additional-config\\.yaml:6:11: ' +
        'processors::evaluation::evaluators::regex::agents::activity-agent: pattern: is required',
    ),
  );
});
