/**
 * The recorder thread (a worker started by recorder.ts): builds the records of the traces it is
 * sent (record-builder.ts) and answers with their rows, moving the bytes' buffer back so that the
 * next job uses it again. Decoding spans and building records is most of what recording costs;
 * here it runs beside the event loop that receives spans, on the other core.
 */
import { parentPort } from 'node:worker_threads';
import { buildTraces, type BuiltTraces } from './record-builder.ts';
import type { InteractionDecision } from './decisions.ts';

/** A trace of a job: its rows are byte ranges of the job's buffer. */
export interface RecorderTrace {
  traceId: string;
  rows: Array<{ codec: number; start: number; end: number }>;
  decisions: InteractionDecision[];
  maybePartial: boolean;
}

export type RecorderMessage = { id: number; traces: RecorderTrace[]; buffer: ArrayBuffer } | { close: true };

export type RecorderReply = {
  id: number;
  result?: BuiltTraces;
  error?: { name: string; message: string };
  /** The job's buffer, moved back. */
  returned: ArrayBuffer;
};

const port = parentPort;
if (!port) throw new Error('recorder thread: must run as a worker thread');

port.on('message', (message: RecorderMessage) => {
  if ('close' in message) {
    port.close();
    return;
  }
  const { id, traces, buffer } = message;
  const bytes = new Uint8Array(buffer);
  const output = createJsonOutput();
  try {
    const result = buildTraces(
      traces.map((trace) => ({
        ...trace,
        rows: trace.rows.map((row) => ({ codec: row.codec, bytes: bytes.subarray(row.start, row.end) })),
      })),
      output.encode,
    );
    // The records' JSON moves with the answer, in the buffers it was written to.
    port.postMessage({ id, result, returned: buffer } satisfies RecorderReply, [buffer, ...output.buffers]);
  } catch (error) {
    const { name, message: text } = error instanceof Error ? error : new Error(String(error));
    port.postMessage({ id, error: { name, message: text }, returned: buffer } satisfies RecorderReply, [buffer]);
  }
});

/** Output buffers a job's JSON is written into as UTF-8, one after another. */
const OUTPUT_CHUNK_BYTES = 1024 * 1024;

function createJsonOutput(): { encode(json: string): Uint8Array; buffers: ArrayBuffer[] } {
  const buffers: ArrayBuffer[] = [];
  let chunk: Buffer | undefined;
  let used = 0;
  return {
    buffers,
    encode(json) {
      const length = Buffer.byteLength(json);
      if (!chunk || used + length > chunk.length) {
        chunk = Buffer.from(new ArrayBuffer(Math.max(OUTPUT_CHUNK_BYTES, length)));
        buffers.push(chunk.buffer as ArrayBuffer);
        used = 0;
      }
      chunk.write(json, used);
      const view = chunk.subarray(used, used + length);
      used += length;
      return view;
    },
  };
}
