/**
 * The span log's index in memory (span-log.ts): each trace's live frames in sequence order, and
 * each segment's count and bytes of live frames. A trace's spans mostly come in one request, so
 * the map holds that one frame itself, and a list only for two or more; a segment counts its
 * frames instead of keeping a set of them. Every pending trace has an entry: 198 → 109 bytes of
 * heap each (docs/benchmarks.md, "Ingest"). What needs a segment's frames (compaction, rare) walks
 * the whole index instead.
 */

/** One segment file: what of it is live, and the segments whose frames its release frames cover. */
export interface Segment {
  id: number;
  /** Its file (`segmentPath` in span-log-scan.ts). */
  path: string;
  fd: number;
  /** Bytes written (or read back whole). */
  size: number;
  /** Live frames in it (`liveBytes` their bytes). */
  liveFrames: number;
  liveBytes: number;
  covers: Set<Segment>;
  deleted: boolean;
  /** Reads in flight elsewhere (`SpanLog.locate`): the file stays open and on disk meanwhile. */
  pins: number;
  /** When a frame of it was last released (`performance.now()`); 0 for a segment found at start. */
  releasedAtMs: number;
}

/** A segment with nothing in it yet: `releasedAtMs` 0 for one found at start. */
export function newSegment(id: number, path: string, fd: number, releasedAtMs: number): Segment {
  const covers = new Set<Segment>();
  return { id, path, fd, size: 0, liveFrames: 0, liveBytes: 0, covers, deleted: false, pins: 0, releasedAtMs };
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
  /** Each trace's live frames, in sequence order: one frame alone, two or more in a list. */
  traces: Map<string, Frame | Frame[]>;
  nextSeq: number;
  nextSegmentId: number;
}

/** A trace's live frames in sequence order, or undefined when it has none. */
export function framesOf(state: SpanLogState, traceId: string): readonly Frame[] | undefined {
  const entry = state.traces.get(traceId);
  return entry === undefined || Array.isArray(entry) ? entry : [entry];
}

/** A live frame into the index: after its trace's others, and counted in its segment. */
export function addFrame(state: SpanLogState, frame: Frame): void {
  const entry = state.traces.get(frame.traceId);
  if (entry === undefined) state.traces.set(frame.traceId, frame);
  else if (Array.isArray(entry)) entry.push(frame);
  else state.traces.set(frame.traceId, [entry, frame]);
  count(frame, 1);
}

/**
 * Keeps of a trace's frames those `keep` answers true for; the others leave the index (and their
 * segments' counts), and are returned.
 */
export function keepFrames(state: SpanLogState, traceId: string, keep: (frame: Frame) => boolean): Frame[] {
  const frames = framesOf(state, traceId);
  if (!frames) return [];
  const kept: Frame[] = [];
  const dropped: Frame[] = [];
  for (const frame of frames) {
    if (keep(frame)) kept.push(frame);
    else {
      dropped.push(frame);
      count(frame, -1);
    }
  }
  if (kept.length === 0) state.traces.delete(traceId);
  else if (dropped.length > 0) state.traces.set(traceId, kept.length === 1 ? kept[0] : kept);
  return dropped;
}

/**
 * Puts `moved` (the same frame, copied elsewhere) where `frame` is in its trace's frames and in the
 * segments' counts. False when `frame` is not live any more (its trace released meanwhile).
 */
export function moveFrame(state: SpanLogState, frame: Frame, moved: Frame): boolean {
  const entry = state.traces.get(frame.traceId);
  if (entry === frame) state.traces.set(frame.traceId, moved);
  else {
    const index = Array.isArray(entry) ? entry.indexOf(frame) : -1;
    if (index < 0) return false;
    (entry as Frame[])[index] = moved;
  }
  count(frame, -1);
  count(moved, 1);
  return true;
}

/** Every live frame of `segment`, in the order they are in it (a walk over the whole index). */
export function framesIn(state: SpanLogState, segment: Segment): Frame[] {
  const found: Frame[] = [];
  for (const entry of state.traces.values()) {
    if (!Array.isArray(entry)) {
      if (entry.segment === segment) found.push(entry);
    } else for (const frame of entry) if (frame.segment === segment) found.push(frame);
  }
  return found.sort((a, b) => a.offset - b.offset);
}

/** Every live frame, in sequence order. */
export function everyFrame(state: SpanLogState): Frame[] {
  return [...state.traces.values()].flat().sort((a, b) => a.seq - b.seq);
}

/** Sorts each trace's frames by sequence number (a read at start finds them segment by segment). */
export function sortFrames(state: SpanLogState): void {
  for (const entry of state.traces.values()) if (Array.isArray(entry)) entry.sort((a, b) => a.seq - b.seq);
}

function count(frame: Frame, sign: 1 | -1): void {
  frame.segment.liveFrames += sign;
  frame.segment.liveBytes += sign * frame.length;
}
