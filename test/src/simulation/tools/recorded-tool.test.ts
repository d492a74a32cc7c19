/**
 * Recorded tools: the recorded result for equal arguments (key order does not matter), the recorded
 * error as an error, "no recording for these arguments" otherwise; and, in a run, the in-process
 * agent offered exactly the declared tools with the participant's system prompt and model.
 */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runScenario } from '../../../../src/simulation/run/run-scenario.ts';
import { parseScenario } from '../../../../src/simulation/scenario/scenario-loader.ts';
import { createSimulationTelemetry } from '../../../../src/simulation/telemetry/otlp-telemetry.ts';
import type { RecordedToolSpec } from '../../../../src/simulation/scenario/scenario.ts';
import { declaredTools } from '../../../../src/simulation/tools/declared-tools.ts';
import { createRecordedTool, NO_RECORDING_MESSAGE } from '../../../../src/simulation/tools/recorded-tool.ts';
import { executeTool } from '../../../../src/simulation/tools/tool-registry.ts';
import { roleOf, startModel, type ModelFixture } from '../../../helpers/model-fixture.ts';

const spec: RecordedToolSpec = {
  source: 'recorded',
  name: 'get_order',
  description: 'Looks an order up',
  inputSchema: { type: 'object' },
  recordings: [
    { arguments: { orderId: 'A-17', fields: ['status', 'eta'] }, result: { status: 'shipped' } },
    { arguments: { orderId: 'B-42' }, result: { status: 'processing' } },
    { arguments: { orderId: 'B-42' }, result: { status: 'shipped' } },
    { arguments: { orderId: 'Z-99' }, error: 'no such order' },
  ],
};

describe('recorded tool', () => {
  it('answers with the recording of equal arguments, whatever their key order', async () => {
    const [tool] = [createRecordedTool(spec)];
    const call = (args: Record<string, unknown>) => executeTool([tool], 'get_order', args as never, {});
    expect((await call({ fields: ['status', 'eta'], orderId: 'A-17' })).result).toEqual({
      toolName: 'get_order',
      arguments: { fields: ['status', 'eta'], orderId: 'A-17' },
      result: { status: 'shipped' },
    });
    // A list is compared in order: these are other arguments.
    expect((await call({ orderId: 'A-17', fields: ['eta', 'status'] })).result).toMatchObject({
      result: null,
      error: NO_RECORDING_MESSAGE,
    });
    expect((await call({ orderId: 'A-17' })).result.error).toBe('no recording for these arguments');
    expect((await call({})).result.error).toBe('no recording for these arguments');
  });

  it('returns a recorded error as that error', async () => {
    const tool = createRecordedTool(spec);
    expect((await executeTool([tool], 'get_order', { orderId: 'Z-99' }, {})).result).toEqual({
      toolName: 'get_order',
      arguments: { orderId: 'Z-99' },
      result: null,
      error: 'no such order',
    });
  });

  it('returns the recordings of the same arguments in order, then repeats the last; per tool', async () => {
    const tool = createRecordedTool(spec);
    const status = async (target = tool) =>
      ((await executeTool([target], 'get_order', { orderId: 'B-42' }, {})).result.result as { status: string }).status;
    expect([await status(), await status(), await status()]).toEqual(['processing', 'shipped', 'shipped']);
    // A fresh tool (a new run) starts from the first recording again.
    expect(await status(createRecordedTool(spec))).toBe('processing');
  });

  it('hands out copies: a caller changing a result does not change the recording', () => {
    const tool = createRecordedTool(spec);
    const first = tool.run({ orderId: 'A-17', fields: ['status', 'eta'] }, {}) as { status: string };
    first.status = 'changed';
    expect(tool.run({ orderId: 'A-17', fields: ['status', 'eta'] }, {})).toEqual({ status: 'shipped' });
  });

  it('builds the declared tools of a participant: recorded and built-in, or every built-in without a list', () => {
    const names = (tools: ReturnType<typeof declaredTools>) => tools.map((tool) => tool.name);
    const base = { name: 'agent', type: 'evaluated' as const, persona: '', goal: '' };
    expect(names(declaredTools({ ...base, tools: [spec, { source: 'builtin', name: 'flight_lookup' }] }))).toEqual([
      'get_order',
      'flight_lookup',
    ]);
    expect(declaredTools({ ...base, tools: [] })).toEqual([]);
    expect(names(declaredTools(base))).toHaveLength(26);
  });
});

describe('the in-process agent with recorded tools, in a run', () => {
  let model: ModelFixture;
  beforeAll(async () => {
    model = await startModel();
  });
  afterAll(() => model.close());
  beforeEach(() => model.scripted.reset());

  it('gets the recorded result for recorded arguments and a tool error for others', async () => {
    const scenario = parseScenario(`name: recorded_tools
description: fixture
participants:
  end_user: { type: scripted, messages: [Where are A-17 and Q-1?] }
  agent:
    type: evaluated
    model: claude-recorded
    system_prompt: You are the shop's support agent.
    tools:
      - name: get_order
        source: recorded
        description: Looks an order up
        recordings:
          - { arguments: { orderId: A-17, verbose: true }, result: '{"status":"shipped"}' }
conversations:
  - { name: chat, between: [end_user, agent], initiated_by: end_user }
`);
    model.route({
      agent: (request) =>
        request.body.messages.at(-1).content.some?.((block: { type: string }) => block.type === 'tool_result')
          ? 'A-17 has shipped; I found no order Q-1.'
          : {
              toolUse: [
                { name: 'get_order', input: { verbose: true, orderId: 'A-17' }, id: 'call_a' },
                { name: 'get_order', input: { orderId: 'Q-1' }, id: 'call_q' },
              ],
            },
    });
    const exporter = new InMemorySpanExporter();
    const telemetry = createSimulationTelemetry(exporter, { model: 'other' });
    const result = await runScenario(scenario, {
      model: model.client,
      thinkingDelays: false,
      modelName: 'other',
      onAgentTurn: (turn) => telemetry.onAgentTurn(turn),
      // The run's last turn is held until its end (it ends the conversation): then it is exported.
      onRunEnd: (runId) => telemetry.onRunEnd(runId),
    });
    await telemetry.forceFlush();
    const [turn] = exporter.getFinishedSpans().filter((span) => span.name === 'invoke_agent agent');
    await telemetry.shutdown();
    // The agent's own model, on its spans too.
    expect(turn.attributes['gen_ai.request.model']).toBe('claude-recorded');

    const agentCalls = model.scripted.requests.filter((request) => roleOf(request) === 'agent');
    expect(agentCalls).toHaveLength(2);
    for (const call of agentCalls) {
      expect(call.body.system).toBe("You are the shop's support agent.");
      expect(call.body.model).toBe('claude-recorded');
      expect(call.body.tools).toEqual([
        { name: 'get_order', description: 'Looks an order up', input_schema: { type: 'object' } },
      ]);
    }
    expect(agentCalls[1].body.messages.at(-1).content).toEqual([
      { type: 'tool_result', tool_use_id: 'call_a', content: '{"status":"shipped"}' },
      { type: 'tool_result', tool_use_id: 'call_q', content: 'no recording for these arguments', is_error: true },
    ]);
    expect(result.transcript.filter((entry) => entry.type === 'tool_result')).toEqual([
      {
        conversation: 'chat',
        type: 'tool_result',
        tool: 'get_order',
        arguments: { verbose: true, orderId: 'A-17' },
        result: '{"status":"shipped"}',
      },
      {
        conversation: 'chat',
        type: 'tool_result',
        tool: 'get_order',
        arguments: { orderId: 'Q-1' },
        result: null,
        error: 'no recording for these arguments',
      },
    ]);
    expect(result.transcript.at(-2)).toMatchObject({
      sender: 'agent',
      content: 'A-17 has shipped; I found no order Q-1.',
    });
  });
});
