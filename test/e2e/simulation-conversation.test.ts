/**
 * A rehearsal judged as a whole: `evalon simulate` exports the evaluated agent's turns to a real
 * collector; the run is one conversation (the run id) whose last turn ends it, so a binding with
 * `trigger: conversation` judges it once, over every turn, as soon as the run is over.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runSimulateCommand } from '../../collector/cli/simulate-command.ts';
import type { ConversationRecord, EvaluationRecord } from '../../src/model/records.ts';
import { startTestCollector, testConfigYaml, type TestCollector } from '../helpers/collector.ts';
import { lastUserText, startModel, type ModelFixture } from '../helpers/model-fixture.ts';
import { pollUntil } from '../helpers/poll.ts';

let model: ModelFixture;
let collector: TestCollector;
beforeAll(async () => {
  model = await startModel();
  collector = await startTestCollector({
    yaml: (dir) =>
      testConfigYaml(dir).replace(
        '  evaluation:\n',
        `    conversation_idle: 1h
  evaluation:
    evaluators:
      tool-call-required:
        tools: [ flight_lookup ]
        agents:
          agent: { trigger: conversation }
`,
      ),
  });
});
afterAll(async () => {
  await collector?.close();
  await model?.close();
});

it('evaluates a simulated run as one conversation, ended by its last turn', async () => {
  let agentCalls = 0;
  model.route({
    participant: (request) => (lastUserText(request).includes('Rebooked') ? 'Thanks [END]' : 'Please rebook BK-5678.'),
    agent: () =>
      ++agentCalls === 1
        ? {
            toolUse: [
              { name: 'flight_lookup', input: { flight_number: 'AA123' } },
              { name: 'flight_rebook', input: { booking_ref: 'BK-5678', new_flight_number: 'AA124' } },
            ],
          }
        : 'Rebooked.',
  });
  const out: string[] = [];
  await runSimulateCommand(
    ['scenarios/reschedule_flight.yaml', '--no-save', '--json'],
    { out: (line) => out.push(line), err: () => {} },
    {
      env: {
        ANTHROPIC_BASE_URL: model.scripted.baseURL,
        ANTHROPIC_API_KEY: 'k',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.otlpUrl.replace(/\/v1\/traces$/, ''),
      },
      color: false,
    },
  );
  const conversations = await pollUntil(
    async () => {
      const response = await fetch(`${collector.apiUrl}/api/v1/conversations?agent=agent`);
      const { conversations: found } = (await response.json()) as { conversations: ConversationRecord[] };
      return found.length > 0 && !found[0].open ? found : undefined;
    },
    { timeoutMs: 20_000, what: 'the run, as a conversation that is over' },
  );
  expect(conversations).toHaveLength(1);
  const [run] = conversations;
  expect(run).toMatchObject({ endReason: 'explicit', revision: 1 });
  expect(out.join('\n')).toContain(run.conversationId);
  const evaluations = await pollUntil(
    async () => {
      const response = await fetch(`${collector.apiUrl}/api/v1/conversations/${run.conversationId}/evaluations`);
      const { evaluations: found } = (await response.json()) as { evaluations: EvaluationRecord[] };
      return found.length > 0 ? found : undefined;
    },
    { timeoutMs: 20_000, what: 'the evaluation of the run' },
  );
  expect(evaluations).toHaveLength(1);
  expect(evaluations[0]).toMatchObject({
    evaluatorId: 'tool-call-required',
    interactionId: run.interactionIds.at(-1),
    subject: { kind: 'conversation', conversationId: run.conversationId, agentId: 'agent', revision: 1 },
    outcome: { evaluation: { passed: true } },
  });
});
