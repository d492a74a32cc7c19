/**
 * Reading a span log's folder (span-log.ts) into its index: every segment in order, every frame
 * checked (length and CRC) until the first that is not whole — a write cut short by a crash ends
 * what is read of that segment, and it was never acknowledged. A release frame releases its
 * traces' frames up to the sequence number it names, those read before it and those after it
 * (copies made by compaction).
 */
import { fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { LedgerStoreError } from '../errors.ts';
import {
  FRAME_HEADER_BYTES,
  FRAME_SPANS,
  frameIntact,
  frameTraceId,
  readFrameHead,
  releasedBy,
} from './span-log-frames.ts';
import {
  addFrame,
  keepFrames,
  newSegment,
  newSpanLogState,
  sortFrames,
  type Frame,
  type Segment,
  type SpanLogState,
} from './span-log-index.ts';

const SEGMENT_NAME = /^(\d{16})\.spans$/;

export function segmentPath(dir: string, id: number): string {
  return join(dir, `${String(id).padStart(16, '0')}.spans`);
}

export function scanSpanLog(dir: string, where: string): SpanLogState {
  const state = newSpanLogState();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return state;
    throw new LedgerStoreError(`ledger ${where}: cannot read its span log ${dir}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const ids = names
    .map((name) => SEGMENT_NAME.exec(name)?.[1])
    .filter((id) => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const released = new Map<string, { seq: number; segment: Segment }>();
  let buffer = Buffer.allocUnsafe(1024 * 1024);
  for (const id of ids) {
    state.nextSegmentId = Math.max(state.nextSegmentId, id + 1);
    const path = segmentPath(dir, id);
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // deleted meanwhile: all released
      throw new LedgerStoreError(`ledger ${where}: cannot read ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const fileSize = fstatSync(fd).size;
    const segment = newSegment(id, path, fd, 0);
    state.segments.set(id, segment);
    let pos = 0;
    while (pos + FRAME_HEADER_BYTES <= fileSize) {
      const headBytes = readAt(fd, buffer, Math.min(FRAME_HEADER_BYTES + 256, fileSize - pos), pos);
      const head = readFrameHead(headBytes, fileSize - pos);
      if (!head) break;
      if (head.length > buffer.length) buffer = Buffer.allocUnsafe(head.length);
      const frame = readAt(fd, buffer, head.length, pos);
      if (!frameIntact(frame)) break;
      if (head.kind === FRAME_SPANS) {
        const traceId = frameTraceId(frame, head);
        const before = released.get(traceId);
        if (before && before.seq >= head.seq) before.segment.covers.add(segment);
        else {
          const spans: Frame = {
            traceId,
            segment,
            offset: pos,
            length: head.length,
            codec: head.codec,
            seq: head.seq,
            idLength: head.idLength,
          };
          addFrame(state, spans);
        }
        state.nextSeq = Math.max(state.nextSeq, head.seq + 1);
      } else {
        for (const { traceId, seq } of releasedBy(frame, head)) {
          const before = released.get(traceId);
          if (!before || before.seq <= seq) released.set(traceId, { seq, segment });
          releaseUpTo(state, traceId, seq, segment);
        }
      }
      pos += head.length;
    }
    segment.size = pos;
  }
  sortFrames(state);
  return state;
}

function readAt(fd: number, buffer: Buffer, length: number, position: number): Buffer {
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

/** Releases a trace's frames up to `seq`, by a release frame in `by`. */
function releaseUpTo(state: SpanLogState, traceId: string, seq: number, by: Segment): void {
  for (const frame of keepFrames(state, traceId, (frame) => frame.seq > seq))
    if (frame.segment !== by) by.covers.add(frame.segment);
}
