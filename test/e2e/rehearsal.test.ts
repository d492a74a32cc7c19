/**
 * From production to rehearsal, end to end. The example support agent (Anthropic SDK tool runner on
 * a scripted model, `invokeAgent({ conversationId })` per turn) has a three-turn conversation with
 * tool calls, recorded by a real collector. `evalon scenario from-conversation` reads it through the
 * collector's conversation routes and writes a scenario; `evalon simulate` runs it: the recorded
 * user messages arrive in order, recorded tools answer recorded arguments and fail others, and the
 * verdict follows the criteria. The same with a remote agent (the TypeScript example). The written
 * file loads as the same scenario and writes back to the same bytes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../collector/cli/main.ts';
import { runSimulateCommand } from '../../collector/cli/simulate-command.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import type { RecordedRequest } from '../../src/testing/scripted-model.ts';
import { loadScenario, parseScenario } from '../../src/simulation/scenario/scenario-loader.ts';
import { formatScenario, scenarioHeader } from '../../src/simulation/scenario/scenario-writer.ts';
import { startTestCollector, type TestCollector } from '../helpers/collector.ts';
import { lastUserText, roleOf, startModel, systemOf, type ModelFixture } from '../helpers/model-fixture.ts';
import { startProductionAgents, SUPPORT_MODEL, type ProductionAgents } from '../helpers/recorded-conversation.ts';

const CONVERSATION = 'conv-rehearsal-e2e';
const QUESTIONS = ['Where is my order A-17?', 'And order B-42?', 'Thanks, that is all.'];
const CRITERIA = `- name: status_of_a17
  description: The agent told the customer that order A-17 has shipped
- name: status_of_b42
  description: The agent told the customer the status of order B-42
`;

let collector: TestCollector;
let agents: ProductionAgents;
let model: ModelFixture;
let dir: string;
let recorded: InteractionRecord[];

beforeAll(async () => {
  collector = await startTestCollector();
  agents = await startProductionAgents(collector);
  recorded = await agents.converse(CONVERSATION, QUESTIONS);
  model = await startModel();
  dir = mkdtempSync(join(tmpdir(), 'evalon-rehearsal-'));
  writeFileSync(join(dir, 'criteria.yaml'), CRITERIA);
});
afterAll(async () => {
  await model?.close();
  await agents?.close();
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
}

async function simulate(file: string, outDir: string) {
  const out: string[] = [];
  const err: string[] = [];
  const env = { ANTHROPIC_BASE_URL: model.scripted.baseURL, ANTHROPIC_API_KEY: 'test-key', EVALON_MODEL: 'judge' };
  const code = await runSimulateCommand(
    [file, '--out', outDir, '--no-delay'],
    { out: (line) => out.push(line), err: (line) => err.push(line) },
    { env, color: false, remoteBackoffBaseMs: 5 },
  );
  const [scenarioDir] = readdirSync(outDir);
  const [entry] = readdirSync(join(outDir, scenarioDir));
  const dataset = JSON.parse(readFileSync(join(outDir, scenarioDir, entry), 'utf8'));
  return { code, out, err, dataset };
}

/** The judge passes a criterion when the transcript it is shown supports it. */
function judge(request: RecordedRequest): string {
  const prompt = lastUserText(request);
  const transcript = prompt.slice(prompt.indexOf('<transcript>'), prompt.indexOf('</transcript>'));
  const passed = prompt.includes('order A-17 has shipped')
    ? /\[agent\] \(?.*A-17 has shipped/.test(transcript)
    : /\[agent\].*B-42 is processing/.test(transcript);
  return JSON.stringify({ passed, reasoning: passed ? 'said so' : 'never said so' });
}

const messages = (transcript: Array<{ type: string; sender?: string; content?: string }>, sender: string) =>
  transcript.filter((entry) => entry.type === 'message' && entry.sender === sender).map((entry) => entry.content);

describe('a recorded production conversation', () => {
  it('is three interactions of the support agent, with its tool calls', () => {
    expect(recorded.map((record) => record.conversationId)).toEqual([CONVERSATION, CONVERSATION, CONVERSATION]);
    expect(recorded[0].toolCalls.map((call) => [call.name, call.arguments])).toEqual([
      ['get_order', { orderId: 'A-17' }],
      ['get_shipping', { orderId: 'A-17' }],
    ]);
    expect(recorded[2].toolCalls).toEqual([]);
  });
});

describe('evalon scenario from-conversation, then evalon simulate', () => {
  it('rehearses it in process: the messages in order, recorded tools, the verdict of the criteria', async () => {
    const file = join(dir, 'in-process.yaml');
    const written = await cli([
      'scenario',
      'from-conversation',
      CONVERSATION,
      '--api',
      collector.apiUrl,
      '--criteria',
      join(dir, 'criteria.yaml'),
      '--out',
      file,
    ]);
    expect(written.err).toEqual([]);
    expect(written).toMatchObject({ code: 0 });
    expect(written.out[0]).toContain(`Wrote ${file}: 3 turns of conversation ${CONVERSATION} of support-agent`);

    const scenario = await loadScenario(file);
    expect(scenario.participants.map((p) => [p.name, p.type])).toEqual([
      ['end_user', 'scripted'],
      ['agent', 'evaluated'],
    ]);
    expect(scenario.participants[0].messages).toEqual(QUESTIONS);
    const agent = scenario.participants[1];
    expect(agent.model).toBe(SUPPORT_MODEL);
    expect(agent.tools?.map((tool) => tool.name)).toEqual(['get_order', 'get_shipping']);
    const getOrder = agent.tools?.[0];
    expect(getOrder?.source === 'recorded' && getOrder.recordings.map((r) => r.arguments)).toEqual([
      { orderId: 'A-17' },
      { orderId: 'B-42' },
    ]);
    expect(scenario.evalCriteria.map((criterion) => criterion.name)).toEqual(['status_of_a17', 'status_of_b42']);

    // The agent under test asks for A-17 as recorded, and for B-42 in a way nobody recorded.
    model.scripted.reset();
    model.route({
      judge,
      agent: (request) => {
        const last = request.body.messages.at(-1).content;
        if (Array.isArray(last)) {
          const results = last.map((block: { content: string; is_error?: boolean }) =>
            block.is_error ? `error ${block.content}` : block.content,
          );
          return lastUserText(request).includes('A-17') && !results.some((r: string) => r.startsWith('error'))
            ? 'Order A-17 has shipped with UPS.'
            : `I could not look B-42 up: ${results.join('; ')}`;
        }
        const text = lastUserText(request);
        const asked = text.slice(text.lastIndexOf('[end_user in chat]:'));
        if (asked.includes('A-17'))
          return { toolUse: [{ name: 'get_order', input: { orderId: 'A-17' }, id: 'call_1' }] };
        if (asked.includes('B-42'))
          return { toolUse: [{ name: 'get_order', input: { orderId: 'B-42', details: 'all' }, id: 'call_2' }] };
        return 'You are welcome.';
      },
    });
    const run = await simulate(file, join(dir, 'runs-in-process'));
    expect(run.err).toEqual([]);

    const transcript = run.dataset.transcript;
    expect(messages(transcript, 'end_user')).toEqual([...QUESTIONS, '[END]']);
    const agentRequests = model.scripted.requests.filter((request) => roleOf(request) === 'agent');
    expect(agentRequests[0].body.model).toBe(SUPPORT_MODEL);
    // Exactly the recorded tools, with the schema inferred from their arguments (descriptions are not recorded).
    expect(agentRequests[0].body.tools).toEqual(
      ['get_order', 'get_shipping'].map((name) => ({
        name,
        input_schema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      })),
    );
    const results = transcript.filter((entry: { type: string }) => entry.type === 'tool_result');
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ tool: 'get_order', arguments: { orderId: 'A-17' } });
    expect(JSON.stringify(results[0].result)).toContain('shipped');
    expect(results[0].result).toEqual(recorded[0].toolCalls[0].result);
    expect(results[1]).toMatchObject({
      tool: 'get_order',
      arguments: { orderId: 'B-42', details: 'all' },
      result: null,
      error: 'no recording for these arguments',
    });
    expect(messages(transcript, 'agent')).toEqual([
      'Order A-17 has shipped with UPS.',
      'I could not look B-42 up: error no recording for these arguments',
      'You are welcome.',
    ]);

    // One criterion is met, the other is not: the run fails on the second alone.
    expect(run.dataset.evaluation.criteria.map((c: { name: string; passed: boolean }) => [c.name, c.passed])).toEqual([
      ['status_of_a17', true],
      ['status_of_b42', false],
    ]);
    expect(run.code).toBe(1);
    expect(run.out.join('\n')).toContain('[FAIL] The agent told the customer the status of order B-42');
  });

  it('rehearses it with a remote agent (the TypeScript example), which answers every recorded message', async () => {
    const server = await startRemoteAgent();
    try {
      const file = join(dir, 'remote.yaml');
      const written = await cli([
        'scenario',
        'from-conversation',
        CONVERSATION,
        '--agent',
        'support-agent',
        '--api',
        collector.apiUrl,
        '--criteria',
        join(dir, 'criteria.yaml'),
        '--agent-endpoint',
        server.url,
        '--out',
        file,
      ]);
      expect(written).toMatchObject({ code: 0, err: [] });
      const scenario = await loadScenario(file);
      expect(scenario.participants[1]).toEqual({
        name: 'agent',
        type: 'evaluated',
        persona: '',
        goal: '',
        endpoint: server.url,
      });

      model.scripted.reset();
      model.route({
        judge: (request) => {
          const prompt = lastUserText(request);
          const echoed = QUESTIONS.every((question) => prompt.includes(`Echo from remote agent: ${question}`));
          return JSON.stringify({ passed: echoed, reasoning: echoed ? 'answered each' : 'missed one' });
        },
      });
      const run = await simulate(file, join(dir, 'runs-remote'));
      expect(run.err).toEqual([]);
      expect(messages(run.dataset.transcript, 'end_user')).toEqual([...QUESTIONS, '[END]']);
      expect(messages(run.dataset.transcript, 'agent')).toEqual(
        QUESTIONS.map((question) => `Echo from remote agent: ${question}`),
      );
      // Only the judge used the model: the user is scripted, the agent remote.
      expect(model.scripted.requests.every((request) => systemOf(request).includes('expert evaluator'))).toBe(true);
      expect(run.dataset.evaluation.passed).toBe(true);
      expect(run.code).toBe(0);
    } finally {
      server.child.kill();
    }
  });

  it('writes a file that loads as the same scenario and writes back to the same bytes', async () => {
    const file = join(dir, 'round-trip.yaml');
    const written = await cli([
      'scenario',
      'from-conversation',
      CONVERSATION,
      '--api',
      collector.apiUrl,
      '--criteria',
      join(dir, 'criteria.yaml'),
      '--out',
      file,
    ]);
    expect(written.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(formatScenario(parseScenario(text, file), { header: scenarioHeader(text) })).toBe(text);
    expect(text.startsWith(`# Rehearsal of conversation ${CONVERSATION} of agent support-agent (3 turns),\n`)).toBe(
      true,
    );
    expect(text).toContain('\n# recorded: no verdicts\n\nname: support-agent-conv-rehearsal-e2e\n');
  });
});

async function startRemoteAgent(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['examples/remote_agent_ts/server.ts', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the remote agent did not start: ${output}`)), 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`the remote agent exited with ${code}: ${output}`)));
  });
  return { url, child };
}
