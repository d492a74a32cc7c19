/** Writes receiver answers: the body in the request's encoding, and a bounded linger for unread bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contentTypeOf } from './content-negotiation.ts';
import type { OtlpFormat } from './decode.ts';
import { encodeStatus, type RpcStatus } from './encode-response.ts';

/**
 * When the answer goes out before the body was read (401, 413, 415, 429), Node drains and
 * discards the rest so the client can read the answer; past this time the connection is cut,
 * so that a client streaming without end cannot hold it.
 */
const UNREAD_BODY_LINGER_MS = 2_000;

export type ReplyHeaders = Record<string, string>;

/** Sends the answer and resolves once it is handed to the socket (or the connection is gone). */
export function reply(
  req: IncomingMessage,
  res: ServerResponse,
  httpStatus: number,
  format: OtlpFormat,
  body: Uint8Array,
  headers: ReplyHeaders = {},
): Promise<void> {
  return new Promise((resolve) => {
    if (res.headersSent || res.destroyed) return resolve();
    res.once('close', () => resolve());
    res.writeHead(httpStatus, {
      ...headers,
      'Content-Type': contentTypeOf(format),
      'Content-Length': String(body.length),
    });
    res.end(body);
    if (!req.complete) limitLinger(req);
  });
}

export function replyStatus(
  req: IncomingMessage,
  res: ServerResponse,
  httpStatus: number,
  format: OtlpFormat,
  status: RpcStatus,
  headers: ReplyHeaders = {},
): Promise<void> {
  return reply(req, res, httpStatus, format, encodeStatus(format, status), headers);
}

function limitLinger(req: IncomingMessage): void {
  const socket = req.socket;
  const timer = setTimeout(() => socket.destroy(), UNREAD_BODY_LINGER_MS);
  timer.unref();
  const clear = () => {
    clearTimeout(timer);
    req.removeListener('end', clear);
    socket.removeListener('close', clear);
  };
  req.once('end', clear);
  socket.once('close', clear);
}
