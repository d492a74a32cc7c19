/**
 * `evalon scenario from-conversation` against a real collector's records (served through the
 * conversation routes' stand-in): bad input as one clear line with its exit code, the bearer token,
 * the recorded verdicts as comments, criteria that must come from somewhere, and a simulated user
 * whose persona and goal the (scripted) model derives.
 */
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../collector/cli/main.ts';
import { runScenarioCommand } from '../../../collector/cli/scenario-command.ts';
import type { EvaluationRecord, InteractionRecord } from '../../../src/model/records.ts';
import { parseScenario } from '../../../src/simulation/scenario/scenario-loader.ts';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing/scripted-model.ts';
import { startTestCollector, testConfigYaml, type TestCollector } from '../../helpers/collector.ts';
import { startConversationApi, type ConversationApi } from '../../helpers/conversation-api.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { startProductionAgents, type ProductionAgents } from '../../helpers/recorded-conversation.ts';

const REPLY_LENGTH = `  evaluation:
    evaluators:
      reply-length:
        min-length: 5
        agents:
          support-agent: { trigger: interaction }
`;
const CONVERSATION = 'conv-cli';
const SHARED = 'conv-shared';
const QUESTIONS = ['Where is my order C-08?', 'Thank you!'];

/** A conversation verdict, as the collector records a conversation-bound criteria judge's. */
const conversationVerdict = (conversationId: string, agentId: string, last: string): EvaluationRecord => ({
  evaluationId: 'ev-conv-1',
  interactionId: last,
  evaluatorId: 'criteria-judge',
  evaluatorVersion: '1',
  agentId,
  outcome: {
    type: 'verdict',
    evaluation: {
      passed: false,
      explanation: '✓ Answered the question\n✗ Offered the tracking number: it did not say "JD0146"',
      attributes: {},
    },
  },
  triggeredAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:00.000Z',
  completedAt: '2026-01-01T00:00:01.000Z',
  attempts: 1,
  subject: { kind: 'conversation', conversationId, agentId, revision: 1 },
});

let collector: TestCollector;
let agents: ProductionAgents;
let api: ConversationApi;
let recorded: InteractionRecord[];
let dir: string;
let criteria: string;

beforeAll(async () => {
  collector = await startTestCollector({ yaml: (d) => testConfigYaml(d).replace(/ {2}evaluation:\n/, REPLY_LENGTH) });
  agents = await startProductionAgents(collector);
  recorded = await agents.converse(CONVERSATION, QUESTIONS);
  await agents.converse(SHARED, ['Where is A-17?']);
  await agents.otherAgentTurn('billing-agent', SHARED, 'Refund A-17');
  // Every turn's reply-length verdict is recorded before the scenario quotes them.
  for (const record of recorded) {
    await pollUntil(async () => {
      const response = await fetch(`${collector.apiUrl}/api/v1/interactions/${record.interactionId}/evaluations`);
      const { evaluations } = (await response.json()) as { evaluations: EvaluationRecord[] };
      return evaluations.length > 0 ? evaluations : undefined;
    });
  }
  api = await startConversationApi({
    collectorApiUrl: collector.apiUrl,
    conversationEvaluations: (conversationId, agentId) =>
      conversationId === CONVERSATION
        ? [conversationVerdict(conversationId, agentId, recorded.at(-1)!.interactionId)]
        : [],
  });
  dir = mkdtempSync(join(tmpdir(), 'evalon-scenario-cli-'));
  criteria = join(dir, 'criteria.yaml');
  writeFileSync(criteria, '- The agent answered every question\n');
});
afterAll(async () => {
  await api?.close();
  await agents?.close();
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runScenarioCommand(
    ['from-conversation', ...args],
    { out: (line) => out.push(line), err: (line) => err.push(line) },
    { env },
  );
  return { code, out, err };
}

describe('evalon scenario from-conversation: bad input', () => {
  it('exits 1 with one line for an unknown conversation', async () => {
    const result = await run(['conv-nobody-had', '--api', api.url, '--criteria', criteria]);
    expect(result).toEqual({
      code: 1,
      out: [],
      err: [
        `evalon scenario from-conversation: conversation conv-nobody-had not found at ${api.url} (evalon ledger ` +
          'list shows the recorded ones)',
      ],
    });
  });

  it('exits 2 listing the agents when several have the conversation and no --agent is given', async () => {
    const result = await run([SHARED, '--api', api.url, '--criteria', criteria]);
    expect(result).toEqual({
      code: 2,
      out: [],
      err: [
        `evalon scenario from-conversation: conversation ${SHARED} belongs to several agents: billing-agent, ` +
          'support-agent (choose one with --agent ID)',
      ],
    });
    const chosen = await run([SHARED, '--agent', 'billing-agent', '--api', api.url, '--criteria', criteria]);
    expect(chosen.code).toBe(0);
    expect(parseScenario(chosen.out.join('\n')).participants[0].messages).toEqual(['Refund A-17']);
  });

  it('exits 1 naming the URL when the API cannot be reached', async () => {
    const closed = await unusedPort();
    const result = await run([CONVERSATION, '--api', `http://127.0.0.1:${closed}`, '--criteria', criteria]);
    expect(result.code).toBe(1);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(
      new RegExp(
        `^evalon scenario from-conversation: cannot reach the Evalon API at http://127\\.0\\.0\\.1:${closed} `,
      ),
    );
  });

  it('exits 2 with one line for bad arguments', async () => {
    const cases: Array<[string[], string]> = [
      [[], 'evalon scenario from-conversation: missing <conversationId> (see --help)'],
      [['a', 'b'], 'evalon scenario from-conversation: unexpected argument "b"'],
      [['a', '--agnet', 'x'], "evalon scenario from-conversation: Unknown option '--agnet'"],
      [['a', '--agent-endpoint', 'localhost:8080'], 'expected an http(s) URL, got "localhost:8080"'],
      [['a', '--criteria', join(dir, 'none.yaml')], `--criteria: cannot read ${join(dir, 'none.yaml')} (ENOENT)`],
      [['a', '--api', 'nowhere'], '--api must be an http(s) URL (got "nowhere")'],
      [['a', '--simulate-user', '--criteria', criteria], 'ANTHROPIC_API_KEY: not set'],
    ];
    for (const [args, message] of cases) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.err, args.join(' ')).toHaveLength(1);
      expect(result.err[0]).toContain(message);
    }
    const unknown = await main(['scenario', 'from-recording'], { out: () => {}, err: () => {} });
    expect(unknown).toBe(2);
  });

  it('exits 2 saying which flag to pass when nothing gives criteria', async () => {
    // The working directory's otel-config.yaml binds no criteria-judge.
    const result = await run([CONVERSATION, '--api', api.url]);
    expect(result.code).toBe(2);
    expect(result.err).toEqual([
      'evalon scenario from-conversation: no criteria for agent support-agent: otel-config.yaml has no ' +
        'criteria-judge entry (pass --criteria FILE with a YAML list of criteria, or --config FILE with a ' +
        'configuration that binds criteria-judge to the agent with trigger: conversation)',
    ]);
  });
});

describe('evalon scenario from-conversation: what it writes', () => {
  it('prints the scenario, headed by the recorded verdicts: the conversation first, then each turn', async () => {
    const result = await run([CONVERSATION, '--api', api.url, '--criteria', criteria]);
    expect(result.code).toBe(0);
    const text = result.out.join('\n');
    const comments = text.split('\n').filter((line) => line.startsWith('# recorded: '));
    expect(comments).toEqual([
      '# recorded: criteria-judge revision 1: fail — "✓ Answered the question; ✗ Offered the tracking number: ' +
        'it did not say \\"JD0146\\""',
      expect.stringMatching(/^# recorded: reply-length turn 1: pass — ".+"$/),
      expect.stringMatching(/^# recorded: reply-length turn 2: pass — ".+"$/),
    ]);
    const scenario = parseScenario(text);
    expect(scenario.participants[0].messages).toEqual(QUESTIONS);
    expect(scenario.evalCriteria.map((criterion) => criterion.name)).toEqual(['The agent answered every question']);
  });

  it('sends --token as a bearer token, and reports an API that refuses it', async () => {
    const guarded = await startConversationApi({ collectorApiUrl: collector.apiUrl, token: 's3cret' });
    try {
      const refused = await run([CONVERSATION, '--api', guarded.url, '--criteria', criteria]);
      expect(refused.code).toBe(1);
      expect(refused.err).toEqual([
        'evalon scenario from-conversation: the API requires a token: pass --token or set EVALON_API_TOKEN',
      ]);
      const allowed = await run([CONVERSATION, '--api', guarded.url, '--token', 's3cret', '--criteria', criteria]);
      expect(allowed.code).toBe(0);
      expect(guarded.requests.at(-1)).toEqual({
        target: `/api/v1/conversations/${CONVERSATION}/evaluations?agent=support-agent&include=interactions`,
        authorization: 'Bearer s3cret',
      });
    } finally {
      await guarded.close();
    }
  });

  it('with --simulate-user, writes a simulated user whose persona and goal the model derived', async () => {
    const model: ScriptedModel = await createScriptedModel();
    try {
      model.enqueue({
        toolUse: [
          {
            name: 'describe_user',
            input: {
              persona: 'You are a customer who ordered a headlamp (order C-08) and writes briefly.',
              goal: 'Find out where order C-08 is.',
            },
          },
        ],
      });
      const out = join(dir, 'simulated.yaml');
      const env = { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: 'test-key', EVALON_MODEL: 'profiler' };
      const result = await run(
        [CONVERSATION, '--api', api.url, '--criteria', criteria, '--simulate-user', '--out', out],
        env,
      );
      expect(result).toMatchObject({ code: 0, err: [] });
      const [request] = model.requests;
      expect(request.body.model).toBe('profiler');
      expect(request.body.tool_choice).toEqual({ type: 'tool', name: 'describe_user' });
      const conversation = request.body.messages[0].content as string;
      expect(conversation).toContain('[user]: Where is my order C-08?\n[agent]: Order C-08 was delivered');
      expect(conversation).toContain('[user]: Thank you!');

      const scenario = parseScenario(readFileSync(out, 'utf8'));
      expect(scenario.participants[0]).toEqual({
        name: 'end_user',
        type: 'simulated',
        persona: 'You are a customer who ordered a headlamp (order C-08) and writes briefly.',
        goal: 'Find out where order C-08 is.',
      });
      expect(scenario.maxTurns).toBe(20);
    } finally {
      await model.close();
    }
  });
});

/** A port nothing listens on: one the system just handed out and took back. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
