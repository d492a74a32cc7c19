/**
 * The recorder thread (a worker started by recorder.ts): builds the records of the traces it is
 * sent (record-builder.ts) and answers with their rows, moving the bytes' buffer back so that the
 * next job uses it again. Decoding spans and building records is most of what recording costs;
 * here it runs beside the event loop that receives spans, on the other core, and below its
 * priority (model/thread-priority.ts): under a burst that fills both cores, acknowledging spans comes
 * first and recording catches up after.
 */
import { parentPort } from 'node:worker_threads';
import { buildTraces, type BuiltTraces } from './record-builder.ts';
import type { InteractionDecision } from './decisions.ts';
import { lowerThisThreadPriority } from '../../model/thread-priority.ts';
import { isLocated, type LocatedSpans } from '../../ledger/span-store.ts';
import { deflateRecords } from '../../ledger/interaction-store.ts';

/** A trace of a job: its rows are byte ranges of the job's buffer, or located in the ledger's files. */
export interface RecorderTrace {
  traceId: string;
  rows: Array<{ codec: number; start: number; end: number } | LocatedSpans>;
  decisions: InteractionDecision[];
  maybePartial: boolean;
}

export type RecorderMessage =
  | {
      id: number;
      traces: RecorderTrace[];
      buffer: ArrayBuffer;
      /** Compress each record's JSON too (the ledger keeps them so: `InteractionStore.compressesRecords`). */
      compress: boolean;
    }
  | { close: true };

export type RecorderReply = {
  id: number;
  result?: BuiltTraces;
  error?: { name: string; message: string };
  /** The job's buffer, moved back. */
  returned: ArrayBuffer;
};

const port = parentPort;
if (!port) throw new Error('recorder thread: must run as a worker thread');
lowerThisThreadPriority();

port.on('message', (message: RecorderMessage) => {
  if ('close' in message) {
    port.close();
    return;
  }
  const { id, traces, buffer, compress } = message;
  const bytes = new Uint8Array(buffer);
  try {
    const result = buildTraces(
      traces.map((trace) => ({
        ...trace,
        rows: trace.rows.map((row) =>
          isLocated(row) ? row : { codec: row.codec, bytes: bytes.subarray(row.start, row.end) },
        ),
      })),
    );
    // The records' JSON moves with the answer, in the buffer it was written to, and so do the
    // compressed records.
    const moved = [buffer, ...jsonAsBytes(result)];
    const compressed = compress ? deflateRecords(result.built.map(({ row }) => row)) : undefined;
    if (compressed) moved.push(compressed);
    port.postMessage({ id, result, returned: buffer } satisfies RecorderReply, moved);
  } catch (error) {
    const { name, message: text } = error instanceof Error ? error : new Error(String(error));
    port.postMessage({ id, error: { name, message: text }, returned: buffer } satisfies RecorderReply, [buffer]);
  }
});

/**
 * The built rows' JSON as UTF-8, written into one buffer of exactly its size (it moves to the event
 * loop and lives there as long as the records handed on keep it): each row's text becomes a view.
 */
function jsonAsBytes(result: BuiltTraces): ArrayBuffer[] {
  let total = 0;
  for (const { row } of result.built) total += Buffer.byteLength(row.json as string);
  if (total === 0) return [];
  const bytes = Buffer.from(new ArrayBuffer(total));
  let at = 0;
  for (const { row } of result.built) {
    const written = bytes.write(row.json as string, at);
    row.json = bytes.subarray(at, at + written);
    at += written;
  }
  return [bytes.buffer as ArrayBuffer];
}
