/**
 * The integration test of the example TranscriptJudgeDurableEvaluator (docs/testing.md,
 * "Integration testing with the runtime"), on the integration harness. There
 * is no unit test kit for a durable evaluator, and its binding comes from configuration, so the
 * test runs it in a collector: bind the evaluator to the agent and replace both models with
 * scripted ones; call the agent and get the interaction id; poll the ledger for the evaluation.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createScriptedModel, TestKit, type ScriptedModel } from '../../../src/testing/index.ts';

const EVALUATORS = fileURLToPath(new URL('../../../examples/evaluators/index.ts', import.meta.url));

let agentModel: ScriptedModel;
let judgeModel: ScriptedModel;
let kit: TestKit;

beforeAll(async () => {
  agentModel = await createScriptedModel();
  judgeModel = await createScriptedModel();
  kit = await TestKit.start({
    modules: [EVALUATORS],
    // Bind the evaluator to the agent, and replace the agent's and the judge's model.
    additionalConfig: `
processors:
  evaluation:
    evaluators:
      transcript-judge-durable-evaluator:
        agents:
          activity-agent: { trigger: interaction }
`,
    modelProviders: { agent: agentModel, judge: judgeModel },
  });
});
afterAll(async () => {
  await kit?.close();
  await agentModel?.close();
  await judgeModel?.close();
});

/** The activity agent: one model call, instrumented with `invokeAgent` by the kit. */
function queryActivityAgent(question: string, conversationId: string) {
  const client = kit.agentClient();
  return kit.invokeAgent({ id: 'activity-agent', conversationId, input: question }, async () => {
    const message = await client.messages.create({
      model: 'claude-test',
      max_tokens: 256,
      messages: [{ role: 'user', content: question }],
    });
    return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  });
}

it('records the durable judge verdict for the agent interaction', async () => {
  agentModel.fixedResponse('Try the hiking trail by the lake.');
  judgeModel.fixedResponse('{ "passed": true, "score": 0.9, "reason": "relevant and specific" }');

  // Call the agent and get the interaction id (the agent's detailed reply carries it).
  const reply = await queryActivityAgent('What can I do this weekend?', randomUUID());
  const interactionId = reply.interactionId;

  // The evaluation runs in the background: poll the ledger until the record appears.
  const records = await kit.awaitEvaluations(interactionId, { atMost: '30s' });

  const record = records[0];
  expect(record.evaluatorId).toBe('transcript-judge-durable-evaluator');
  expect(record.outcome.type).toBe('verdict');
  if (record.outcome.type !== 'verdict') return;
  expect(record.outcome.evaluation.passed).toBe(true);
  expect(record.outcome.evaluation.score).toBe(0.9);
  expect(record.outcome.evaluation.explanation).toBe('relevant and specific');
  expect(JSON.stringify(judgeModel.requests[0].body.messages)).toContain('Try the hiking trail by the lake.');
});
