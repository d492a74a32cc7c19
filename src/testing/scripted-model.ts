/**
 * A scripted model: a local HTTP server that speaks the Anthropic Messages API
 * (`POST /v1/messages`, JSON or SSE streaming), so the real `@anthropic-ai/sdk` talks to it through
 * `ANTHROPIC_BASE_URL` / `baseURL`. It stands in for the model in tests: fixed responses, per-call
 * sequences, `tool_use` blocks, injected errors (a 400 "prompt is too long" among them) and latency.
 *
 * Replies are taken in this order: the queue (`enqueue`), then the handler (`respondWith`), then
 * the fixed response. With none of them, the server answers 500 naming what is missing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolUse {
  name: string;
  input: unknown;
  id?: string;
}

export interface ScriptedReply {
  /** Text of the reply (a text block). */
  text?: string;
  /** tool_use blocks, after the text block when both are given. */
  toolUse?: ScriptedToolUse[];
  /** Defaults to `tool_use` when there are tool uses, else `end_turn`. */
  stopReason?: string;
  usage?: { input_tokens: number; output_tokens: number };
  /** Answer with this HTTP error status instead (429, 500, 529, ...), with an Anthropic error body. */
  errorStatus?: number;
  /** The error body's `message` (default `scripted <status>`); see `promptTooLongReply`. */
  errorMessage?: string;
  /** Seconds for a `retry-after` header on an error reply. */
  retryAfter?: number;
  /** Answer 200 with a body that is not valid JSON. */
  malformed?: boolean;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface RecordedRequest {
  /** The parsed request body: the Messages API JSON as the client sent it. */
  // The client's JSON as sent: assertions read any field of it (`body.tools[0].input_schema`), and the
  // SDK's request type would make each of its optional fields a compile error there.
  // biome-ignore lint/suspicious/noExplicitAny: the Messages API request body, read freely by assertions
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export type ScriptedHandler = (request: RecordedRequest, callIndex: number) => ScriptedReply | string;

export interface ScriptedModel {
  /** Base URL for the SDK (`new Anthropic({ baseURL })` or `ANTHROPIC_BASE_URL`). */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** The reply used when the queue is empty and no handler is set. */
  fixedResponse(reply: ScriptedReply | string): this;
  /** Replies for the next calls, one per call, in order. */
  enqueue(...replies: Array<ScriptedReply | string>): this;
  /** Computes replies from the request (after the queue is used up). */
  respondWith(handler: ScriptedHandler): this;
  /** Forgets queued replies, handler, fixed response and recorded requests. */
  reset(): this;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/**
 * What the Messages API answers a request larger than the model's context window: 400
 * `invalid_request_error`, "prompt is too long: 215000 tokens > 200000 maximum".
 */
export function promptTooLongReply(tokens = 215_000, maximum = 200_000): ScriptedReply {
  return { errorStatus: 400, errorMessage: `prompt is too long: ${tokens} tokens > ${maximum} maximum` };
}

/** Starts a scripted model on 127.0.0.1 (an ephemeral port unless `port` is given). */
export async function createScriptedModel(options: { port?: number; host?: string } = {}): Promise<ScriptedModel> {
  const queue: Array<ScriptedReply | string> = [];
  const requests: RecordedRequest[] = [];
  let handler: ScriptedHandler | undefined;
  let fixed: ScriptedReply | string | undefined;
  let messageCounter = 0;

  const server: Server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }));
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'not_found_error', message: `no route ${req.method} ${req.url}` },
        }),
      );
      return;
    }
    let body: ScriptedRequestFields;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'body is not JSON' } }));
      return;
    }
    const request: RecordedRequest = { body, headers: req.headers };
    const callIndex = requests.length;
    requests.push(request);
    const scripted = queue.length > 0 ? queue.shift()! : handler ? handler(request, callIndex) : fixed;
    if (scripted === undefined) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'error',
          error: {
            type: 'api_error',
            message: 'scripted model: no reply scripted for this call (use fixedResponse, enqueue or respondWith)',
          },
        }),
      );
      return;
    }
    const reply: ScriptedReply = typeof scripted === 'string' ? { text: scripted } : scripted;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));

    if (reply.errorStatus) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
      res.writeHead(reply.errorStatus, headers);
      const type = ERROR_TYPES[reply.errorStatus] ?? 'api_error';
      const message = reply.errorMessage ?? `scripted ${reply.errorStatus}`;
      res.end(JSON.stringify({ type: 'error', error: { type, message } }));
      return;
    }
    if (reply.malformed) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "msg_malformed", "content": [');
      return;
    }
    const message = toMessage(reply, body, ++messageCounter);
    if (body.stream) writeStream(res, message);
    else {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_scripted_${messageCounter}` });
      res.end(JSON.stringify(message));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;

  const model: ScriptedModel = {
    baseURL: `http://${address.address}:${address.port}`,
    requests,
    fixedResponse(reply) {
      fixed = reply;
      return model;
    },
    enqueue(...replies) {
      queue.push(...replies);
      return model;
    },
    respondWith(fn) {
      handler = fn;
      return model;
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
      handler = undefined;
      fixed = undefined;
      return model;
    },
    close() {
      return new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
  return model;
}

type ContentBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

/** The fields of a request body the scripted model itself reads. */
type ScriptedRequestFields = { model?: unknown; messages?: unknown; stream?: unknown };

function toMessage(reply: ScriptedReply, request: ScriptedRequestFields, n: number) {
  const content: ContentBlock[] = [];
  if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
  reply.toolUse?.forEach((use, i) => {
    content.push({ type: 'tool_use', id: use.id ?? `toolu_scripted_${n}_${i}`, name: use.name, input: use.input });
  });
  const usage = reply.usage ?? {
    input_tokens: Math.max(1, Math.ceil(JSON.stringify(request.messages ?? []).length / 4)),
    output_tokens: Math.max(1, Math.ceil(JSON.stringify(content).length / 4)),
  };
  return {
    id: `msg_scripted_${n}`,
    type: 'message',
    role: 'assistant',
    model: typeof request.model === 'string' ? request.model : 'scripted-model',
    content,
    stop_reason: reply.stopReason ?? (reply.toolUse?.length ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage,
  };
}

function writeStream(res: ServerResponse, message: ReturnType<typeof toMessage>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', {
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      usage: { input_tokens: message.usage.input_tokens, output_tokens: 0 },
    },
  });
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}
