/**
 * Request bodies of the API: read whole for a POST, at most MAX_BODY_BYTES (a verdict or a claim
 * is small), drained unread for other methods so that keep-alive connections stay usable. A JSON
 * body is parsed by the route that takes it (`jsonBody`), a problem answered 400 naming `body`.
 */
import type { IncomingMessage } from 'node:http';
import type { JsonReply } from './router.ts';

/** The largest body a route takes. */
export const MAX_BODY_BYTES = 256 * 1024;

export class BodyTooLargeError extends Error {
  constructor() {
    super(`the request body is larger than ${MAX_BODY_BYTES} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** The body as text for a POST; '' (drained) for other methods. */
export function readBody(request: IncomingMessage): Promise<string> {
  if (request.method !== 'POST') {
    request.resume();
    return Promise.resolve('');
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_BODY_BYTES) {
        request.removeAllListeners('data');
        request.resume();
        reject(new BodyTooLargeError());
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** The parsed JSON of a body, or the 400 reply that says it is not JSON. */
export function jsonBody(body: string): { ok: true; value: unknown } | { ok: false; reply: JsonReply } {
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return {
      ok: false,
      reply: { status: 400, body: { error: 'the request body must be a JSON object', field: 'body' } },
    };
  }
}

/** Whether a Content-Type header names JSON (`application/json`, parameters such as charset aside). */
export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}
