/**
 * The SQLite ledger's span log: what it gives back, across restarts, after a write cut short or a
 * damaged byte, and how its segment files come and go (rotation, deletion once nothing needs them,
 * compaction of mostly released segments).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SpanRow } from '../../../../collector/ledger/core/rows.ts';
import { openSpanLog, type SpanLog } from '../../../../collector/ledger/sqlite/span-log.ts';
import { isLocated, readStoredSpans } from '../../../../collector/ledger/core/span-codec.ts';
import { pollUntil } from '../../../helpers/poll.ts';

const dirs: string[] = [];
const logs: SpanLog[] = [];
afterEach(async () => {
  for (const log of logs.splice(0)) await log.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-span-log-'));
  dirs.push(dir);
  return join(dir, 'ledger.db-spans');
}

type Options = { segmentBytes?: number; synchronous?: 'normal' | 'full'; compactQuietMs?: number };

/** A span log; it copies a mostly released segment forward at once unless told to wait. */
function open(dir: string, options: Options = {}): SpanLog {
  const log = openSpanLog({ dir, synchronous: 'normal', where: 'test', compactQuietMs: 0, ...options });
  logs.push(log);
  return log;
}

async function reopen(log: SpanLog, dir: string, options: Options = {}): Promise<SpanLog> {
  await log.close();
  return open(dir, options);
}

const trace = (n: number) => n.toString(16).padStart(32, '0');
/** A row of `size` bytes, all `fill`. */
const row = (t: number, fill: number, size = 100): SpanRow => ({
  traceId: trace(t),
  count: 1,
  codec: 2,
  bytes: Buffer.alloc(size, fill),
});
const fills = (log: SpanLog, t: number) => (log.rowsOf([trace(t)]).get(trace(t)) ?? []).map((r) => r.bytes[0]);
const everyRow = (log: SpanLog) => {
  const seen: Array<[string, number]> = [];
  log.eachRow((r) => seen.push([r.traceId, r.bytes[0]]));
  return seen;
};
const segments = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.spans'))
    .sort();

describe('the span log', () => {
  it('gives back what was appended, by trace and in order, until released, also after a restart', async () => {
    const dir = folder();
    let log = open(dir);
    await log.append([row(1, 1), row(2, 2)]);
    await log.append([row(1, 3)]);
    expect(fills(log, 1)).toEqual([1, 3]);
    expect(log.has(trace(2))).toBe(true);
    expect(everyRow(log)).toEqual([
      [trace(1), 1],
      [trace(2), 2],
      [trace(1), 3],
    ]);
    await log.release([trace(2), trace(9)]);
    expect(log.has(trace(2))).toBe(false);
    log = await reopen(log, dir);
    expect(everyRow(log)).toEqual([
      [trace(1), 1],
      [trace(1), 3],
    ]);
    expect(log.rowsOf([trace(2)]).size).toBe(0);
    // A released trace receiving spans again is pending again.
    await log.append([row(2, 4)]);
    log = await reopen(log, dir);
    expect(fills(log, 2)).toEqual([4]);
  });

  it('syncs every write with synchronous=full and gives back the same', async () => {
    const dir = folder();
    let log = open(dir, { synchronous: 'full' });
    await log.append([row(1, 7, 5000)]);
    await log.release([]);
    log = await reopen(log, dir);
    expect(fills(log, 1)).toEqual([7]);
    expect(log.rowsOf([trace(1)]).get(trace(1))![0].bytes).toHaveLength(5000);
  });

  it('ends a segment at a write cut short (a crash mid-write), keeping what came before it', async () => {
    const dir = folder();
    let log = open(dir);
    await log.append([row(1, 1)]);
    await log.append([row(2, 2, 1000)]);
    await log.close();
    const [file] = segments(dir);
    const size = readFileSync(join(dir, file)).length;
    truncateSync(join(dir, file), size - 500);
    log = open(dir);
    expect(everyRow(log)).toEqual([[trace(1), 1]]);
    // New appends go to a segment of their own, after the cut one.
    await log.append([row(3, 3)]);
    log = await reopen(log, dir);
    expect(everyRow(log)).toEqual([
      [trace(1), 1],
      [trace(3), 3],
    ]);
  });

  it('ends a segment at a frame that does not match its checksum', async () => {
    const dir = folder();
    let log = open(dir);
    await log.append([row(1, 1)]);
    await log.append([row(2, 2)]);
    await log.append([row(3, 3)]);
    await log.close();
    const path = join(dir, segments(dir)[0]);
    const bytes = readFileSync(path);
    // The second frame's payload: after the first frame and the second's header and id.
    const first = bytes.readUInt32LE(4);
    bytes[first + 28 + 32 + 10] ^= 0xff;
    writeFileSync(path, bytes);
    log = open(dir);
    expect(everyRow(log)).toEqual([[trace(1), 1]]);
  });

  it('starts a new segment past its size and deletes segments nothing needs any more', async () => {
    const dir = folder();
    const log = open(dir, { segmentBytes: 4096 });
    for (let t = 1; t <= 6; t++) await log.append([row(t, t, 1500)]);
    expect(segments(dir).length).toBeGreaterThanOrEqual(3);
    await log.release([1, 2, 3, 4, 5].map(trace));
    // Every segment but the one being written to (which holds trace 6 and the release) goes.
    await pollUntil(() => (segments(dir).length === 1 ? true : undefined), { what: 'released segments deleted' });
    expect(fills(log, 6)).toEqual([6]);
    expect(log.bytes).toBeLessThan(4096 + 200);
  });

  it('locates rows for a reader elsewhere, and keeps their segment until they are given back', async () => {
    const dir = folder();
    const log = open(dir, { segmentBytes: 4096 });
    await log.append([row(1, 1, 1500), row(2, 2, 1500)]);
    await log.append([row(3, 3, 1500)]); // a second segment: the first is sealed
    const first = segments(dir)[0];
    const located = log.locate([trace(1), trace(2), trace(9)]);
    expect([...located.keys()]).toEqual([trace(1), trace(2)]);
    // Read as another thread would, from the file the log keeps open: the two frames in one read.
    const read = readStoredSpans([...located.values()].flat(), 'test');
    expect(read.rows.map((r) => [r.codec, r.bytes.length, r.bytes[0], r.bytes[1499]])).toEqual([
      [2, 1500, 1, 1],
      [2, 1500, 2, 2],
    ]);
    read.giveBack();
    // Released meanwhile: the segment stays while the located rows may still be read.
    await log.release([trace(1), trace(2)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(segments(dir)).toContain(first);
    log.giveBack(located);
    await pollUntil(() => (!segments(dir).includes(first) ? true : undefined), { what: 'segment deleted once let go' });
    expect(fills(log, 3)).toEqual([3]);
  });

  it('refuses a located row whose frame is not where it was said to be', () => {
    const dir = folder();
    const log = open(dir);
    return log.append([row(1, 1, 200)]).then(() => {
      const [located] = [...log.locate([trace(1)]).values()].flat();
      if (!isLocated(located)) throw new Error('expected a located row');
      // Not a frame's start: its first bytes are not the frame magic.
      const inside = { ...located, position: located.position + 4, length: located.length - 4 };
      expect(() => readStoredSpans([inside], 'test')).toThrow(/stored spans are damaged: span log .*\.spans at 4$/);
      // Past the end of the file: cut short.
      const past = { ...located, length: located.length + 10 };
      expect(() => readStoredSpans([past], 'test')).toThrow(/stored spans are damaged: span log .*\.spans at \d+$/);
    });
  });

  it('keeps a segment whose release frames cover one still there: a restart replays no released trace', async () => {
    const dir = folder();
    let log = open(dir, { segmentBytes: 2048 });
    await log.append([row(1, 1, 900), row(2, 2, 900)]); // segment 1: traces 1 and 2
    await log.append([row(3, 3, 1500)]); // segment 2
    await log.release([trace(1)]); // the release of 1 goes in segment 2, covering segment 1
    await log.release([trace(3)]); // segment 2 is now all released, but covers segment 1 (trace 2 lives)
    await new Promise((resolve) => setTimeout(resolve, 50));
    log = await reopen(log, dir, { segmentBytes: 2048 });
    expect(everyRow(log)).toEqual([[trace(2), 2]]);
    await log.release([trace(2)]);
    await pollUntil(() => (segments(dir).length === 1 ? true : undefined), { what: 'every released segment gone' });
    log = await reopen(log, dir, { segmentBytes: 2048 });
    expect(everyRow(log)).toEqual([]);
  });

  it('copies the live frames of a mostly released segment forward and deletes it, keeping their order', async () => {
    const dir = folder();
    let log = open(dir, { segmentBytes: 8192 });
    // Segment 1: traces 1..7 (1000 bytes each); trace 4 has a second row later, in segment 2.
    await log.append([1, 2, 3, 4, 5, 6, 7].map((t) => row(t, t, 1000)));
    await log.append([row(4, 44, 1000), row(8, 8, 1000)]);
    const first = segments(dir)[0];
    // All but trace 4 released: segment 1 keeps one frame of seven, and is copied forward.
    await log.release([1, 2, 3, 5, 6, 7].map(trace));
    await pollUntil(() => (!segments(dir).includes(first) ? true : undefined), { what: 'segment 1 compacted away' });
    expect(fills(log, 4)).toEqual([4, 44]);
    log = await reopen(log, dir, { segmentBytes: 8192 });
    expect(fills(log, 4)).toEqual([4, 44]);
    expect(everyRow(log).map(([t]) => t)).toEqual([trace(4), trace(4), trace(8)]);
  });

  it('copies a mostly released segment forward only once its frames have stopped being released', async () => {
    const dir = folder();
    const log = open(dir, { segmentBytes: 8192, compactQuietMs: 300 });
    await log.append([1, 2, 3, 4, 5, 6, 7, 8].map((t) => row(t, t, 800))); // segment 1
    await log.append([row(9, 9, 1000)]); // segment 2: segment 1 is sealed
    const first = segments(dir)[0];
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Two frames of eight left: mostly released, but being released still (a backlog recorded).
    await log.release([1, 2, 3, 5, 6, 7].map(trace));
    await sleep(150);
    expect(segments(dir)).toContain(first);
    await log.release([trace(8)]); // released again: it waits its quiet time anew
    await sleep(200);
    expect(segments(dir)).toContain(first);
    // Quiet: copied forward with nothing else happening.
    await pollUntil(() => (!segments(dir).includes(first) ? true : undefined), { what: 'segment 1 compacted away' });
    expect(fills(log, 4)).toEqual([4]);
    expect(everyRow(log).map(([t]) => t)).toEqual([trace(4), trace(9)]);
  });

  it('does not bring back a trace released while its frames were being copied forward', async () => {
    const dir = folder();
    let log = open(dir, { segmentBytes: 8192 });
    await log.append([1, 2, 3, 4, 5, 6, 7].map((t) => row(t, t, 1000)));
    await log.append([row(8, 8, 1000)]);
    const releasing = log.release([1, 2, 3, 5, 6, 7].map(trace)); // queues the copy of trace 4
    const again = log.release([trace(4)]); // before the copy is written
    await Promise.all([releasing, again]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    log = await reopen(log, dir, { segmentBytes: 8192 });
    expect(everyRow(log)).toEqual([[trace(8), 8]]);
  });

  it('deletes at start, when tidied, segments whose frames were all released before a restart', async () => {
    const dir = folder();
    let log = open(dir, { segmentBytes: 2048 });
    await log.append([row(1, 1, 1500)]);
    await log.append([row(2, 2, 1500)]);
    await log.release([trace(1), trace(2)]);
    // The segment being written to when the collector stopped stays: all of it released.
    log = await reopen(log, dir, { segmentBytes: 2048 });
    expect(segments(dir)).toHaveLength(1);
    log.tidy();
    await pollUntil(() => (segments(dir).length === 0 ? true : undefined), { what: 'the dead segment deleted' });
    expect(everyRow(log)).toEqual([]);
    log = await reopen(log, dir, { segmentBytes: 2048 });
    expect(everyRow(log)).toEqual([]);
  });

  it('reads nothing from a folder that is not there, and creates it on the first append', async () => {
    const dir = folder();
    const log = open(dir);
    expect(everyRow(log)).toEqual([]);
    expect(log.bytes).toBe(0);
    await log.append([row(1, 1)]);
    expect(segments(dir)).toHaveLength(1);
  });

  it('refuses use once closed', async () => {
    const log = open(folder());
    await log.close();
    await log.close();
    expect(() => log.has(trace(1))).toThrow(/the store is closed/);
  });
});
