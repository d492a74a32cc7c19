/**
 * A minimal remote agent for `evalon simulate`: speaks POST /v1/step, protocol version "1".
 * The evaluator owns the history, so this server keeps no state. It answers every step with an
 * echo of the last message not written by the agent, and a trace saying how it answered.
 *
 *   node examples/remote_agent_ts/server.ts [--port 8080] [--host 127.0.0.1] [--fail-first N]
 *
 * --fail-first N answers the first N steps with 503 (to watch the evaluator retry).
 * Only Node's standard library is used, so the file can be copied anywhere.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

interface Turn {
  type: 'turn';
  conversation: string;
  sender: string;
  content: string;
  trace?: unknown;
}

interface ToolUse {
  type: 'tool_use';
  conversation: string;
  interaction: {
    call: { tool_name: string; arguments: object };
    result: { tool_name: string; arguments: object; result: unknown; error?: string };
  };
}

interface StepRequest {
  protocol_version: string;
  history: Array<Turn | ToolUse>;
  events: Array<{ name: string; data: object }>;
  respond_in: string;
}

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '8080' },
    host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
    'fail-first': { type: 'string', default: '0' },
  },
});
let failuresLeft = Number(values['fail-first']);

function step(request: StepRequest): object {
  const last = [...request.history]
    .reverse()
    .find((item): item is Turn => item.type === 'turn' && item.sender !== 'agent');
  const content = last ? `Echo from remote agent: ${last.content}` : 'Echo from remote agent: (no prior message)';
  return {
    action: {
      type: 'send',
      message: {
        sender: 'agent',
        content,
        trace: { handler: 'echo', history_items: request.history.length, events: request.events.length },
      },
      tool_interactions: [],
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method !== 'POST' || req.url !== '/v1/step')
    return reply(404, { error: `no route ${req.method} ${req.url}` });
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (failuresLeft > 0) {
    failuresLeft--;
    return reply(503, { error: 'temporarily unavailable (--fail-first)' });
  }
  let request: StepRequest;
  try {
    request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as StepRequest;
  } catch {
    return reply(400, { error: 'body is not JSON' });
  }
  if (request.protocol_version !== '1')
    return reply(400, {
      error: `unsupported protocol_version ${JSON.stringify(request.protocol_version)} (this server speaks "1")`,
    });
  if (!Array.isArray(request.history) || typeof request.respond_in !== 'string')
    return reply(400, { error: 'expected history (a list) and respond_in (a string)' });
  reply(200, step(request));
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: String(error) }));
  });
});
server.listen(Number(values.port), values.host, () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(`remote agent listening on http://${address}:${port}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
