import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClaudeAgent } from '../../../../src/simulation/agent/claude-agent.ts';
import { builtInTools } from '../../../../src/simulation/tools/tool-registry.ts';
import type { Tool } from '../../../../src/simulation/tools/tool.ts';
import { startModel, type ModelFixture } from '../../../helpers/model-fixture.ts';

describe('in-process Claude agent', () => {
  let model: ModelFixture;
  beforeAll(async () => {
    model = await startModel();
  });
  afterAll(() => model.close());
  beforeEach(() => model.scripted.reset());

  const history = [{ type: 'turn' as const, conversation: 'chat', sender: 'end_user', content: 'help' }];

  it('stops after the maximum of tool rounds with a scored message and the tool trace', async () => {
    model.scripted.fixedResponse({ toolUse: [{ name: 'noop', input: {} }] });
    const agent = createClaudeAgent({ model: model.client, maxToolRounds: 2 });
    const action = await agent.step(history, [], 'chat');
    expect(action).toMatchObject({
      type: 'send',
      message: { sender: 'agent', content: 'Reached the maximum of 2 tool-use rounds without completing the request.' },
    });
    const trace = action.type === 'send' ? action.toolInteractions : [];
    expect(trace).toHaveLength(2);
    expect(
      trace.every(
        (interaction) => interaction.result.error === "Tool 'noop' not found" && interaction.result.result === null,
      ),
    ).toBe(true);
    expect(model.scripted.requests).toHaveLength(2);
  });

  it('runs the tools of one round concurrently and feeds results (and errors) back', async () => {
    const order: string[] = [];
    const slow: Tool = {
      name: 'slow',
      description: 'slow',
      inputSchema: { type: 'object', properties: {} },
      run: async () => {
        order.push('slow start');
        await new Promise((resolve) => setTimeout(resolve, 30));
        order.push('slow end');
        return { slow: true };
      },
    };
    const fails: Tool = {
      name: 'fails',
      description: 'fails',
      inputSchema: { type: 'object', properties: {} },
      run: () => {
        order.push('fails');
        throw new Error('no such booking');
      },
    };
    model.scripted.enqueue(
      {
        text: 'Checking.',
        toolUse: [
          { name: 'slow', input: {}, id: 't1' },
          { name: 'fails', input: {}, id: 't2' },
        ],
      },
      'All done.',
    );
    const agent = createClaudeAgent({
      model: model.client,
      tools: [slow, fails],
      agentName: 'helper',
      systemPrompt: 'be brief',
    });
    const action = await agent.step(history, [{ name: 'case_created', data: { id: 1 } }], 'chat');
    expect(order).toEqual(['slow start', 'fails', 'slow end']);
    expect(action).toMatchObject({ type: 'send', message: { sender: 'helper', content: 'All done.' } });
    const second = model.scripted.requests[1].body;
    expect(second.system).toBe('be brief');
    expect(second.tools.map((tool: { name: string }) => tool.name)).toEqual(['slow', 'fails']);
    expect(second.messages.at(-1).content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: '{"slow":true}' },
      { type: 'tool_result', tool_use_id: 't2', content: 'no such booking', is_error: true },
    ]);
    const first = model.scripted.requests[0].body.messages[0].content as string;
    expect(first).toContain('[end_user in chat]: help');
    expect(first).toContain('[System event: case_created] {"id":1}');
    expect(first).toContain('[system]: Respond now in the "chat" conversation.');
  });

  it('is silent on a bare [NO_ACTION] and strips a trailing one', async () => {
    model.scripted.enqueue('[NO_ACTION]', 'Tell them about the policy. [NO_ACTION]');
    const agent = createClaudeAgent({ model: model.client });
    expect(await agent.step(history, [], 'assist')).toMatchObject({ type: 'send', message: { content: '' } });
    expect(await agent.step(history, [], 'assist')).toMatchObject({
      type: 'send',
      message: { content: 'Tell them about the policy.' },
    });
  });

  it('changes the context through its tools, so later look-ups see the change', async () => {
    const context = {
      bookings: { 'HTL-1': { booking_ref: 'HTL-1', total: 100, status: 'confirmed', payment_method: 'card' } },
    };
    model.scripted.enqueue(
      {
        toolUse: [
          { name: 'hotel_booking_lookup', input: { booking_ref: 'HTL-1' } },
          { name: 'hotel_cancel', input: { booking_ref: 'HTL-1', refund_type: 'partial' } },
        ],
      },
      { toolUse: [{ name: 'hotel_booking_lookup', input: { booking_ref: 'HTL-1' } }] },
      'Cancelled.',
    );
    const agent = createClaudeAgent({ model: model.client, tools: builtInTools(), context });
    const action = await agent.step(history, [], 'chat');
    const trace = action.type === 'send' ? action.toolInteractions : [];
    // Results are snapshots: the look-up before the cancellation still shows it confirmed.
    expect(trace[0].result.result).toMatchObject({ status: 'confirmed' });
    expect(trace[1].result.result).toMatchObject({
      status: 'cancelled',
      refund_amount: 80,
      message: 'Booking HTL-1 cancelled. Partial refund of $80.00 processed.',
    });
    expect(trace[2].result.result).toMatchObject({ status: 'cancelled', refund_type: 'partial' });
    expect(context.bookings['HTL-1'].status).toBe('cancelled');
  });
});
