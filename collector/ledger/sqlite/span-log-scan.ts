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

/** One segment file: what of it is live, and the segments whose frames its release frames cover. */
export interface Segment {
  id: number;
  /** Its file (`segmentPath`). */
  path: string;
  fd: number;
  /** Bytes written (or read back whole). */
  size: number;
  liveBytes: number;
  frames: Set<Frame>;
  covers: Set<Segment>;
  deleted: boolean;
  /** Reads in flight elsewhere (`SpanLog.locate`): the file stays open and on disk meanwhile. */
  pins: number;
  /** When a frame of it was last released (`performance.now()`); 0 for a segment found at start. */
  releasedAtMs: number;
}

/** A segment with nothing in it yet: `releasedAtMs` 0 for one found at start. */
export function newSegment(id: number, path: string, fd: number, releasedAtMs: number): Segment {
  const [frames, covers] = [new Set<Frame>(), new Set<Segment>()];
  return { id, path, fd, size: 0, liveBytes: 0, frames, covers, deleted: false, pins: 0, releasedAtMs };
}

/** One spans frame: a trace's row, where it is. */
export interface Frame {
  traceId: string;
  segment: Segment;
  offset: number;
  length: number;
  codec: number;
  seq: number;
  idLength: number;
}

export interface SpanLogState {
  segments: Map<number, Segment>;
  /** Each trace's live frames, in sequence order. */
  traces: Map<string, Frame[]>;
  nextSeq: number;
  nextSegmentId: number;
}

const SEGMENT_NAME = /^(\d{16})\.spans$/;

export function segmentPath(dir: string, id: number): string {
  return join(dir, `${String(id).padStart(16, '0')}.spans`);
}

export function scanSpanLog(dir: string, where: string): SpanLogState {
  const state: SpanLogState = { segments: new Map(), traces: new Map(), nextSeq: 1, nextSegmentId: 1 };
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
  for (const frames of state.traces.values()) frames.sort((a, b) => a.seq - b.seq);
  return state;
}

function readAt(fd: number, buffer: Buffer, length: number, position: number): Buffer {
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

/** A live frame into the index: its trace's list and its segment's count. */
export function addFrame(state: SpanLogState, frame: Frame): void {
  const frames = state.traces.get(frame.traceId);
  if (frames) frames.push(frame);
  else state.traces.set(frame.traceId, [frame]);
  frame.segment.frames.add(frame);
  frame.segment.liveBytes += frame.length;
}

/** Releases a trace's frames up to `seq`, by a release frame in `by`. */
function releaseUpTo(state: SpanLogState, traceId: string, seq: number, by: Segment): void {
  const frames = state.traces.get(traceId);
  if (!frames) return;
  const kept = frames.filter((frame) => {
    if (frame.seq > seq) return true;
    frame.segment.frames.delete(frame);
    frame.segment.liveBytes -= frame.length;
    if (frame.segment !== by) by.covers.add(frame.segment);
    return false;
  });
  if (kept.length > 0) state.traces.set(traceId, kept);
  else state.traces.delete(traceId);
}
