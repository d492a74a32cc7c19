/**
 * Reads a request body into one buffer, undoing gzip/deflate as a stream, and stops as soon as
 * the body limit is crossed on the wire or after decompression (a few KB of gzip can inflate to
 * gigabytes: the inflater is destroyed at the limit, never run to the end). Nothing past the limit
 * is kept; what the client still sends is read and discarded so that it can receive the answer.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { copyTogether, type BufferPool } from '../../model/buffer-pool.ts';
import { freeBuffer } from '../../model/free-buffer.ts';
import type { ContentEncoding } from './content-negotiation.ts';
import { BodyEncodingError, BodyTooLargeError, InFlightLimitError, RequestAbortedError } from './errors.ts';

export interface ReadBodyOptions {
  encoding: ContentEncoding;
  maxBytes: number;
  /** Called with the bytes held so far (decompressed); false stops reading with InFlightLimitError. */
  onHeld(totalBytes: number): boolean;
  /** Where a body of several chunks is put together (given back by `releaseBody`); else a new buffer. */
  pool?: BufferPool;
}

/** The buffers of bodies this module put together (no one else holds a view of them). */
const assembled = new WeakSet<ArrayBufferLike>();

/**
 * Frees a body read by `readBody` once nothing needs it (its spans are decoded or copied out), or
 * gives it back to the pool it was put together in: a request body of megabytes would otherwise
 * wait for a garbage collection, and under sustained ingest those bodies were a large share of the
 * collector's memory. A body `readBody` did not put together itself (one chunk, which may share its
 * buffer) is left to the garbage collector.
 */
export function releaseBody(body: Buffer, pool?: BufferPool): void {
  if (!assembled.delete(body.buffer)) return;
  if (pool) pool.give(body.buffer);
  else freeBuffer(body.buffer);
}

export function readBody(req: IncomingMessage, options: ReadBodyOptions): Promise<Buffer> {
  const { encoding, maxBytes, onHeld, pool } = options;
  return new Promise((resolve, reject) => {
    const inflater = encoding === 'gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : undefined;
    const output: Readable = inflater ?? req;
    const chunks: Buffer[] = [];
    let heldBytes = 0;
    let wireBytes = 0;
    let settled = false;

    const detach = () => {
      settled = true;
      output.removeListener('data', onData);
      output.removeListener('end', onEnd);
      req.removeListener('data', onWireData);
      req.removeListener('error', onRequestError);
      req.removeListener('close', onRequestClose);
      if (inflater !== undefined) {
        req.unpipe(inflater);
        inflater.removeListener('error', onInflateError);
        inflater.on('error', () => {}); // destroy() below may still surface one; nobody listens.
        inflater.destroy();
      }
    };
    const fail = (error: Error) => {
      if (settled) return;
      detach();
      chunks.length = 0;
      req.resume(); // discard the rest without keeping it
      reject(error);
    };
    const tooLarge = (where: string) =>
      new BodyTooLargeError(
        `request body: larger than ${maxBytes} bytes ${where}(raise ` +
          'receivers::otlp::protocols::http::max_request_body_size, or send smaller batches)',
        { limitBytes: maxBytes },
      );

    function onData(chunk: Buffer) {
      heldBytes += chunk.length;
      if (heldBytes > maxBytes) return fail(tooLarge(inflater === undefined ? '' : 'after decompression '));
      if (!onHeld(heldBytes)) {
        return fail(new InFlightLimitError('request body: the receiver holds too many request bytes (retry later)'));
      }
      chunks.push(chunk);
    }
    function onWireData(chunk: Buffer) {
      wireBytes += chunk.length;
      if (wireBytes > maxBytes) fail(tooLarge('on the wire '));
    }
    function onEnd() {
      if (settled) return;
      detach();
      if (chunks.length === 1) return resolve(chunks[0]);
      const body = pool ? copyTogether(pool, chunks).bytes : Buffer.concat(chunks, heldBytes);
      // A buffer of its own (from the pool, or one Buffer.concat did not take from Node's slab).
      if (pool || (body.byteOffset === 0 && body.byteLength === body.buffer.byteLength)) assembled.add(body.buffer);
      resolve(body);
    }
    function onInflateError(error: Error) {
      fail(new BodyEncodingError(`request body: not valid ${encoding} data (${error.message})`, { cause: error }));
    }
    function onRequestError(error: Error) {
      fail(new RequestAbortedError(`request body: the connection failed (${error.message})`, { cause: error }));
    }
    function onRequestClose() {
      if (!req.complete)
        fail(new RequestAbortedError('request body: the client closed the connection before sending it all'));
    }

    output.on('data', onData);
    output.on('end', onEnd);
    req.on('error', onRequestError);
    req.on('close', onRequestClose);
    if (inflater !== undefined) {
      req.on('data', onWireData);
      inflater.on('error', onInflateError);
      req.pipe(inflater);
    }
  });
}
