/**
 * The span log's index in memory (collector/ledger/sqlite/span-log-index.ts): frames kept in typed
 * columns, linked per trace, answered as Frame objects; segments' counts follow every change.
 */
import { describe, expect, it } from 'vitest';
import {
  addFrame,
  everyFrame,
  framesIn,
  framesOf,
  keepFrames,
  moveFrame,
  newSegment,
  newSpanLogState,
  sortFrames,
  type Frame,
  type Segment,
} from '../../../../collector/ledger/sqlite/span-log-index.ts';

function frame(traceId: string, segment: Segment, seq: number, offset = seq * 100): Frame {
  return { traceId, segment, offset, length: 100, codec: 1 + (seq % 3), seq, idLength: traceId.length };
}

describe('span log index', () => {
  it('gives each trace its frames in sequence order, past the first columns, and counts them in segments', () => {
    const state = newSpanLogState();
    const a = newSegment(1, 'a', 3, 0);
    const b = newSegment(2, 'b', 4, 0);
    // 3,000 frames (more slots than the index starts with), each trace's in reverse order, as a
    // read at start may find them when a trace's frames lie in several segments.
    for (let round = 2; round >= 0; round--)
      for (let t = 0; t < 1000; t++) addFrame(state, frame(`t${t}`, round === 0 ? a : b, round * 1000 + t));
    sortFrames(state);
    expect(framesOf(state, 't7')).toEqual([frame('t7', a, 7), frame('t7', b, 1007), frame('t7', b, 2007)]);
    expect(framesOf(state, 'missing')).toBeUndefined();
    expect([a.liveFrames, a.liveBytes, b.liveFrames, b.liveBytes]).toEqual([1000, 100_000, 2000, 200_000]);
    expect(everyFrame(state).map((f) => f.seq)).toEqual([...Array(3000).keys()]);
    expect(framesIn(state, a).map((f) => f.traceId)).toEqual([...Array(1000).keys()].map((t) => `t${t}`));
  });

  it('drops the frames not kept, frees their slots for new frames, and forgets a trace with none left', () => {
    const state = newSpanLogState();
    const segment = newSegment(1, 'a', 3, 0);
    for (let seq = 0; seq < 6; seq++) addFrame(state, frame(seq % 2 === 0 ? 'even' : 'odd', segment, seq));
    const dropped = keepFrames(state, 'even', (f) => f.seq > 2);
    expect(dropped.map((f) => f.seq)).toEqual([0, 2]);
    expect(framesOf(state, 'even')!.map((f) => f.seq)).toEqual([4]);
    expect(keepFrames(state, 'odd', () => false).map((f) => f.seq)).toEqual([1, 3, 5]);
    expect(state.traces.has('odd')).toBe(false);
    expect(segment.liveFrames).toBe(1);
    // Freed slots serve new frames: thousands of frames added and released keep the columns small.
    for (let seq = 6; seq < 5006; seq++) {
      addFrame(state, frame(`t${seq}`, segment, seq));
      keepFrames(state, `t${seq}`, () => false);
    }
    expect(state.frames.next.length).toBe(1024);
    expect(segment.liveFrames).toBe(1);
    expect(keepFrames(state, 'odd', () => true)).toEqual([]);
  });

  it('moves a live frame to its copy, and refuses one released or already elsewhere', () => {
    const state = newSpanLogState();
    const from = newSegment(1, 'a', 3, 0);
    const to = newSegment(2, 'b', 4, 0);
    addFrame(state, frame('x', from, 1));
    addFrame(state, frame('x', from, 2));
    const [first, second] = framesOf(state, 'x')!;
    expect(moveFrame(state, second, { ...second, segment: to, offset: 0 })).toBe(true);
    expect(framesOf(state, 'x')).toEqual([first, { ...second, segment: to, offset: 0 }]);
    expect([from.liveFrames, to.liveFrames, to.liveBytes]).toEqual([1, 1, 100]);
    // The old place is no longer where the frame is.
    expect(moveFrame(state, second, { ...second, segment: to, offset: 500 })).toBe(false);
    keepFrames(state, 'x', () => false);
    expect(moveFrame(state, first, { ...first, segment: to, offset: 100 })).toBe(false);
    expect([from.liveFrames, to.liveFrames]).toEqual([0, 0]);
  });
});
