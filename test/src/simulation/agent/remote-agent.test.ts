import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRemoteAgent, RemoteAgentError } from '../../../../src/simulation/agent/remote-agent.ts';
import type { HistoryEntry } from '../../../../src/simulation/agent/agent.ts';

interface Scripted {
  status: number;
  body: string;
}

const history: HistoryEntry[] = [
  { type: 'turn', conversation: 'support_chat', sender: 'end_user', content: 'hi' },
  { type: 'turn', conversation: 'support_chat', sender: 'agent', content: 'hello', trace: { intent: 'lookup' } },
  {
    type: 'tool_use',
    conversation: 'agent_assist',
    interaction: {
      call: { toolName: 'flight_lookup', arguments: { flight_number: 'AA1' } },
      result: { toolName: 'flight_lookup', arguments: { flight_number: 'AA1' }, result: null, error: 'not found' },
    },
  },
];

describe('remote agent (POST /v1/step)', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(
    replies: Scripted[],
  ): Promise<{ url: string; bodies: string[]; headers: Array<Record<string, unknown>> }> {
    const bodies: string[] = [];
    const headers: Array<Record<string, unknown>> = [];
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      headers.push({ ...req.headers, url: req.url, method: req.method });
      const reply = replies.length > 1 ? replies.shift()! : replies[0];
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, bodies, headers };
  }

  const ok = (content = 'answer', extra: object = {}) => ({
    status: 200,
    body: JSON.stringify({ action: { type: 'send', message: { sender: 'agent', content }, ...extra } }),
  });

  it('posts the remote-agent wire format, protocol version "1", compact JSON', async () => {
    const remote = await serve([ok()]);
    await createRemoteAgent({ endpoint: `${remote.url}/` }).step(
      history,
      [{ name: 'case_created', data: { id: 1 } }],
      'support_chat',
    );
    expect(remote.headers[0]).toMatchObject({ url: '/v1/step', method: 'POST', 'content-type': 'application/json' });
    expect(remote.bodies[0]).toBe(
      JSON.stringify({
        protocol_version: '1',
        history: [
          { type: 'turn', conversation: 'support_chat', sender: 'end_user', content: 'hi' },
          {
            type: 'turn',
            conversation: 'support_chat',
            sender: 'agent',
            content: 'hello',
            trace: { intent: 'lookup' },
          },
          {
            type: 'tool_use',
            conversation: 'agent_assist',
            interaction: {
              call: { tool_name: 'flight_lookup', arguments: { flight_number: 'AA1' } },
              result: {
                tool_name: 'flight_lookup',
                arguments: { flight_number: 'AA1' },
                result: null,
                error: 'not found',
              },
            },
          },
        ],
        events: [{ name: 'case_created', data: { id: 1 } }],
        respond_in: 'support_chat',
      }),
    );
  });

  it('decodes send with trace and tool_interactions, the older tool_trace, and end', async () => {
    const interaction = {
      call: { tool_name: 't', arguments: { a: 1 } },
      result: { tool_name: 't', arguments: { a: 1 }, result: { ok: true } },
    };
    const remote = await serve([
      {
        status: 200,
        body: JSON.stringify({
          action: {
            type: 'send',
            message: { sender: 'x', content: 'c', trace: { intent: 'i' } },
            tool_interactions: [interaction],
          },
        }),
      },
      {
        status: 200,
        body: JSON.stringify({ action: { type: 'send', message: { content: 'old' }, tool_trace: [interaction] } }),
      },
      {
        status: 200,
        body: JSON.stringify({ action: { type: 'send', message: { content: 'none' }, tool_trace: null } }),
      },
      { status: 200, body: '{"action":{"type":"end"}}' },
    ]);
    const agent = createRemoteAgent({ endpoint: remote.url, agentName: 'helper' });
    const expected = {
      call: { toolName: 't', arguments: { a: 1 } },
      result: { toolName: 't', arguments: { a: 1 }, result: { ok: true } },
    };
    expect(await agent.step([], [], 'c')).toEqual({
      type: 'send',
      message: { sender: 'helper', content: 'c', trace: { intent: 'i' } },
      toolInteractions: [expected],
    });
    expect(await agent.step([], [], 'c')).toMatchObject({ message: { content: 'old' }, toolInteractions: [expected] });
    expect(await agent.step([], [], 'c')).toMatchObject({ message: { content: 'none' }, toolInteractions: [] });
    expect(await agent.step([], [], 'c')).toEqual({ type: 'end' });
  });

  it.each([429, 502, 503, 529])('retries %i after 1, 2 and 4 backoff units, then succeeds', async (status) => {
    const remote = await serve([
      { status, body: '{"error":"busy"}' },
      { status, body: '{"error":"busy"}' },
      { status, body: '{"error":"busy"}' },
      ok('finally'),
    ]);
    const sleeps: number[] = [];
    const agent = createRemoteAgent({
      endpoint: remote.url,
      backoffBaseMs: 1000,
      sleep: async (ms) => void sleeps.push(ms),
    });
    expect(await agent.step([], [], 'c')).toMatchObject({ message: { content: 'finally' } });
    expect(sleeps).toEqual([1000, 2000, 4000]);
    expect(remote.bodies).toHaveLength(4);
  });

  it('gives up after 3 retries with the status and body', async () => {
    const remote = await serve([{ status: 503, body: 'still down' }]);
    const error = await createRemoteAgent({ endpoint: remote.url, backoffBaseMs: 1 })
      .step([], [], 'c')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteAgentError);
    expect(error).toMatchObject({ status: 503, body: 'still down' });
    expect((error as Error).message).toContain('HTTP 503 after 3 retries: still down');
    expect(remote.bodies).toHaveLength(4);
  });

  it('does not retry other errors and reports status and body', async () => {
    const remote = await serve([{ status: 500, body: 'kaboom' }]);
    const error = await createRemoteAgent({ endpoint: remote.url, backoffBaseMs: 1 })
      .step([], [], 'c')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RemoteAgentError', status: 500, body: 'kaboom' });
    expect(remote.bodies).toHaveLength(1);
  });

  it('fails on a 2xx body that is not a step response', async () => {
    const remote = await serve([{ status: 200, body: '{"action":{"type":"dance"}}' }]);
    const error = await createRemoteAgent({ endpoint: remote.url })
      .step([], [], 'c')
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /response is not a valid step response .*\nBody: \{"action":\{"type":"dance"\}\}/s,
    );
  });

  it('names the endpoint when it cannot be reached', async () => {
    const error = await createRemoteAgent({ endpoint: 'http://127.0.0.1:1' })
      .step([], [], 'c')
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      'remote agent http://127.0.0.1:1: cannot reach http://127.0.0.1:1/v1/step',
    );
  });
});
