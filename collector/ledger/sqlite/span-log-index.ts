/**
 * The span log's index in memory (span-log.ts): each trace's live frames in sequence order, and
 * each segment's count and bytes of live frames. A frame's numbers live in columns of typed arrays
 * (one slot a frame, its trace's next frame linked from it), and the map from trace ids to their
 * first slot holds a small integer: no object a frame. An object a frame took ~80 bytes of heap a
 * pending trace, and one more object for every full collection to visit (docs/benchmarks.md,
 * "Ingest"). What the index answers are `Frame` objects made for the call, which the caller may keep
 * as long as it likes. A segment counts its frames instead of keeping a set of them; what needs a
 * segment's frames (compaction, rare) walks the whole index instead.
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

/** The frames' columns: slot `i` of each is frame `i`'s; a free slot's `next` links the free ones. */
interface FrameSlots {
  segment: (Segment | undefined)[];
  offset: Float64Array;
  length: Float64Array;
  seq: Float64Array;
  codec: Uint8Array;
  idLength: Int32Array;
  /** The trace's next frame in sequence order, or NONE. */
  next: Int32Array;
  /** The first free slot, or NONE. */
  free: number;
}

export interface SpanLogState {
  segments: Map<number, Segment>;
  /** Each trace's first live frame (a slot); its others follow through the slots' links. */
  traces: Map<string, number>;
  frames: FrameSlots;
  nextSeq: number;
  nextSegmentId: number;
}

const NONE = -1;
const INITIAL_SLOTS = 1024;

/** An index with nothing in it. */
export function newSpanLogState(): SpanLogState {
  return { segments: new Map(), traces: new Map(), frames: slotsOf(INITIAL_SLOTS), nextSeq: 1, nextSegmentId: 1 };
}

/** A trace's live frames in sequence order, or undefined when it has none. */
export function framesOf(state: SpanLogState, traceId: string): readonly Frame[] | undefined {
  const first = state.traces.get(traceId);
  if (first === undefined) return undefined;
  const frames: Frame[] = [];
  for (let slot = first; slot !== NONE; slot = state.frames.next[slot]) frames.push(frameIn(state, traceId, slot));
  return frames;
}

/** A live frame into the index: after its trace's others, and counted in its segment. */
export function addFrame(state: SpanLogState, frame: Frame): void {
  const slot = take(state);
  const { frames } = state;
  frames.segment[slot] = frame.segment;
  frames.offset[slot] = frame.offset;
  frames.length[slot] = frame.length;
  frames.seq[slot] = frame.seq;
  frames.codec[slot] = frame.codec;
  frames.idLength[slot] = frame.idLength;
  frames.next[slot] = NONE;
  const first = state.traces.get(frame.traceId);
  if (first === undefined) state.traces.set(frame.traceId, slot);
  else {
    let last = first;
    while (frames.next[last] !== NONE) last = frames.next[last];
    frames.next[last] = slot;
  }
  count(frame, 1);
}

/**
 * Keeps of a trace's frames those `keep` answers true for; the others leave the index (and their
 * segments' counts), and are returned.
 */
export function keepFrames(state: SpanLogState, traceId: string, keep: (frame: Frame) => boolean): Frame[] {
  const first = state.traces.get(traceId);
  if (first === undefined) return [];
  const { frames } = state;
  const dropped: Frame[] = [];
  let head = NONE;
  let last = NONE;
  for (let slot = first; slot !== NONE; ) {
    const following = frames.next[slot];
    const frame = frameIn(state, traceId, slot);
    if (keep(frame)) {
      if (last === NONE) head = slot;
      else frames.next[last] = slot;
      frames.next[slot] = NONE;
      last = slot;
    } else {
      dropped.push(frame);
      count(frame, -1);
      give(state, slot);
    }
    slot = following;
  }
  if (head === NONE) state.traces.delete(traceId);
  else if (head !== first) state.traces.set(traceId, head);
  return dropped;
}

/**
 * Puts `moved` (the same frame, copied elsewhere) where `frame` is in its trace's frames and in the
 * segments' counts. False when `frame` is not live any more (its trace released meanwhile).
 */
export function moveFrame(state: SpanLogState, frame: Frame, moved: Frame): boolean {
  const { frames } = state;
  let slot = state.traces.get(frame.traceId) ?? NONE;
  // A frame's sequence number is its own: no other frame, live or released, has it.
  while (slot !== NONE && frames.seq[slot] !== frame.seq) slot = frames.next[slot];
  if (slot === NONE || frames.segment[slot] !== frame.segment || frames.offset[slot] !== frame.offset) return false;
  frames.segment[slot] = moved.segment;
  frames.offset[slot] = moved.offset;
  count(frame, -1);
  count(moved, 1);
  return true;
}

/** Every live frame of `segment`, in the order they are in it (a walk over the whole index). */
export function framesIn(state: SpanLogState, segment: Segment): Frame[] {
  const found: Frame[] = [];
  const { frames } = state;
  for (const [traceId, first] of state.traces) {
    for (let slot = first; slot !== NONE; slot = frames.next[slot])
      if (frames.segment[slot] === segment) found.push(frameIn(state, traceId, slot));
  }
  return found.sort((a, b) => a.offset - b.offset);
}

/** Every live frame, in sequence order. */
export function everyFrame(state: SpanLogState): Frame[] {
  const found: Frame[] = [];
  for (const traceId of state.traces.keys()) found.push(...framesOf(state, traceId)!);
  return found.sort((a, b) => a.seq - b.seq);
}

/** Sorts each trace's frames by sequence number (a read at start finds them segment by segment). */
export function sortFrames(state: SpanLogState): void {
  const { frames } = state;
  for (const [traceId, first] of state.traces) {
    if (frames.next[first] === NONE) continue;
    const slots: number[] = [];
    for (let slot = first; slot !== NONE; slot = frames.next[slot]) slots.push(slot);
    slots.sort((a, b) => frames.seq[a] - frames.seq[b]);
    for (let i = 0; i < slots.length; i++) frames.next[slots[i]] = i + 1 < slots.length ? slots[i + 1] : NONE;
    state.traces.set(traceId, slots[0]);
  }
}

function frameIn(state: SpanLogState, traceId: string, slot: number): Frame {
  const { frames } = state;
  return {
    traceId,
    segment: frames.segment[slot]!,
    offset: frames.offset[slot],
    length: frames.length[slot],
    codec: frames.codec[slot],
    seq: frames.seq[slot],
    idLength: frames.idLength[slot],
  };
}

function slotsOf(size: number): FrameSlots {
  const next = new Int32Array(size);
  for (let i = 0; i < size; i++) next[i] = i + 1 < size ? i + 1 : NONE;
  return {
    segment: new Array<Segment | undefined>(size).fill(undefined),
    offset: new Float64Array(size),
    length: new Float64Array(size),
    seq: new Float64Array(size),
    codec: new Uint8Array(size),
    idLength: new Int32Array(size),
    next,
    free: 0,
  };
}

/** A free slot; the columns double when none is left. */
function take(state: SpanLogState): number {
  let { frames } = state;
  if (frames.free === NONE) {
    const size = frames.next.length;
    const grown = slotsOf(size * 2);
    grown.offset.set(frames.offset);
    grown.length.set(frames.length);
    grown.seq.set(frames.seq);
    grown.codec.set(frames.codec);
    grown.idLength.set(frames.idLength);
    grown.next.set(frames.next);
    for (let i = 0; i < size; i++) grown.segment[i] = frames.segment[i];
    // The new slots, size and up, are the free ones (slotsOf linked them in order).
    grown.free = size;
    state.frames = grown;
    frames = grown;
  }
  const slot = frames.free;
  frames.free = frames.next[slot];
  return slot;
}

/** A slot let go: free again, and its segment no longer referenced from it. */
function give(state: SpanLogState, slot: number): void {
  const { frames } = state;
  frames.segment[slot] = undefined;
  frames.next[slot] = frames.free;
  frames.free = slot;
}

function count(frame: Frame, sign: 1 | -1): void {
  frame.segment.liveFrames += sign;
  frame.segment.liveBytes += sign * frame.length;
}
