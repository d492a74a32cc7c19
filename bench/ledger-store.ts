/**
 * Ledger store benchmark: how fast the SQLite store takes `appendSpans` batches of realistic
 * spans, and the measurements behind its design (codec, row layout, driver, synchronous mode).
 *
 *   source ../shared/tools/use-node24.sh && node bench/ledger-store.ts
 *
 * Options (environment): BENCH_SPANS (spans appended per run, default 200000),
 * BETTER_SQLITE3 (path of an installed better-sqlite3 package to compare drivers).
 * Figures are recorded in docs/benchmarks.md, "Ledger store choice".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { deserialize, serialize } from 'node:v8';
import type { SpanData } from '../collector/model/span.ts';
import { createSqliteStore } from '../collector/ledger/sqlite/sqlite-store.ts';
import { CACHE_SIZE_KIB, PAGE_SIZE_BYTES, WAL_AUTOCHECKPOINT_PAGES } from '../collector/ledger/sqlite/open-database.ts';
import { makeBatch, seededRandom } from '../test/helpers/span-fixtures.ts';

const TOTAL_SPANS = Number(process.env.BENCH_SPANS ?? 200_000);
const TRACES_PER_BATCH = 50;
const SPANS_PER_TRACE = 20;
const BATCH_SIZE = TRACES_PER_BATCH * SPANS_PER_TRACE;
const DISTINCT_BATCHES = 40;

const random = seededRandom(42);
const batches = Array.from({ length: DISTINCT_BATCHES }, () => makeBatch(random, TRACES_PER_BATCH, SPANS_PER_TRACE));
const rounds = Math.ceil(TOTAL_SPANS / BATCH_SIZE);
const dir = mkdtempSync(join(tmpdir(), 'evalon-ledger-bench-'));
const results: { what: string; figure: string }[] = [];

function record(what: string, spans: number, ms: number, extra = ''): void {
  const figure = `${Math.round(spans / (ms / 1000)).toLocaleString('en-US')} spans/s${extra}`;
  results.push({ what, figure });
  console.log(`${what.padEnd(62)} ${figure}`);
}

function groupByTrace(spans: SpanData[]): SpanData[][] {
  const groups = new Map<string, SpanData[]>();
  for (const span of spans) {
    const group = groups.get(span.traceId);
    if (group) group.push(span);
    else groups.set(span.traceId, [span]);
  }
  return [...groups.values()];
}

function bytesReplacer(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? { $bytes: Buffer.from(value).toString('base64') } : value;
}
function bytesReviver(_key: string, value: unknown): unknown {
  const bytes = (value as { $bytes?: unknown } | null)?.$bytes;
  return typeof bytes === 'string' ? new Uint8Array(Buffer.from(bytes, 'base64')) : value;
}

function codecs(): void {
  const groups = batches.flatMap(groupByTrace);
  const spans = groups.reduce((n, g) => n + g.length, 0);
  const time = (fn: () => void): number => {
    fn();
    const start = performance.now();
    for (let i = 0; i < 3; i += 1) fn();
    return (performance.now() - start) / 3;
  };
  let jsonBytes = 0;
  let v8Bytes = 0;
  const json = groups.map((g) => JSON.stringify(g, bytesReplacer));
  const v8 = groups.map((g) => serialize(g));
  for (const s of json) jsonBytes += Buffer.byteLength(s);
  for (const b of v8) v8Bytes += b.length;
  record(
    'codec: JSON.stringify (Uint8Array replacer)',
    spans,
    time(() => {
      for (const g of groups) JSON.stringify(g, bytesReplacer);
    }),
    `, ${Math.round(jsonBytes / spans)} B/span`,
  );
  record(
    'codec: v8.serialize',
    spans,
    time(() => {
      for (const g of groups) serialize(g);
    }),
    `, ${Math.round(v8Bytes / spans)} B/span`,
  );
  record(
    'codec: JSON.parse (Uint8Array reviver)',
    spans,
    time(() => {
      for (const s of json) JSON.parse(s, bytesReviver);
    }),
  );
  record(
    'codec: v8.deserialize',
    spans,
    time(() => {
      for (const b of v8) deserialize(b);
    }),
  );
}

/**
 * The collector's pattern: `concurrency` OTLP requests in flight, each one `appendSpans` call, and
 * traces released once 20 batches old (so the pending table stays small, as in steady state).
 * Reports wall-clock spans/s and the event loop's busy time per batch (what the rest of the
 * collector can no longer use).
 */
async function storeAppend(
  writer: 'thread' | 'inline',
  synchronous: 'normal' | 'full',
  concurrency: number,
): Promise<void> {
  const path = join(dir, `store-${writer}-${synchronous}-${concurrency}.db`);
  const store = createSqliteStore({ path, synchronous, writer });
  const released: string[][] = [];
  let next = 0;
  const run = async (count: number) => {
    const lane = async () => {
      while (next < count) {
        const batch = batches[next++ % DISTINCT_BATCHES];
        await store.appendSpans(batch);
        released.push([...new Set(batch.map((s) => s.traceId))]);
        if (released.length > 20) await store.releaseTraces(released.shift()!);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  };
  await run(20); // warm-up
  next = 0;
  const appendRounds = synchronous === 'full' ? Math.min(rounds, 100) : rounds;
  const elu = performance.eventLoopUtilization();
  const start = performance.now();
  await run(appendRounds);
  const ms = performance.now() - start;
  const busy = performance.eventLoopUtilization(elu);
  const busyPerBatch = (busy.active / appendRounds).toFixed(2);
  record(
    `appendSpans, writer=${writer}, synchronous=${synchronous}, ${concurrency} in flight`,
    appendRounds * BATCH_SIZE,
    ms,
    `, event loop ${busyPerBatch} ms/batch`,
  );
  await store.close();
}

async function storeReads(): Promise<void> {
  const path = join(dir, 'store-reads.db');
  const store = createSqliteStore({ path });
  for (let i = 0; i < rounds; i += 1) await store.appendSpans(batches[i % DISTINCT_BATCHES]);
  let start = performance.now();
  const pending = await store.loadPendingSpans();
  record(`loadPendingSpans (${pending.length} spans)`, pending.length, performance.now() - start);
  const traceIds = [...new Set(pending.map((s) => s.traceId))];
  start = performance.now();
  for (const traceId of traceIds) await store.loadTraceSpans(traceId);
  record(`loadTraceSpans, ${traceIds.length} traces`, pending.length, performance.now() - start);
  start = performance.now();
  for (let i = 0; i < traceIds.length; i += 100) await store.releaseTraces(traceIds.slice(i, i + 100));
  record('releaseTraces, 100 traces per call', pending.length, performance.now() - start);
  await store.close();
}

interface Driver {
  name: string;
  open(path: string): { exec(sql: string): void; insert(args: unknown[]): void; close(): void };
}

function drivers(): Driver[] {
  const list: Driver[] = [
    {
      name: 'node:sqlite',
      open(path) {
        const db = new DatabaseSync(path);
        return setup(
          (sql) => db.exec(sql),
          () => db.prepare('INSERT INTO t (trace_id, n, spans) VALUES (?, ?, ?)'),
          () => db.close(),
        );
      },
    },
  ];
  const location = process.env.BETTER_SQLITE3;
  if (location) {
    const Database = createRequire(import.meta.url)(location) as new (
      path: string,
    ) => {
      exec(sql: string): void;
      prepare(sql: string): { run(...args: unknown[]): void };
      close(): void;
    };
    list.push({
      name: 'better-sqlite3',
      open(path) {
        const db = new Database(path);
        return setup(
          (sql) => db.exec(sql),
          () => db.prepare('INSERT INTO t (trace_id, n, spans) VALUES (?, ?, ?)'),
          () => db.close(),
        );
      },
    });
  }
  return list;
}

function setup(exec: (sql: string) => void, prepare: () => { run(...args: unknown[]): unknown }, close: () => void) {
  exec(`PRAGMA page_size = ${PAGE_SIZE_BYTES}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL`);
  exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}; PRAGMA cache_size = -${CACHE_SIZE_KIB}`);
  exec(
    'CREATE TABLE t (id INTEGER PRIMARY KEY, trace_id TEXT NOT NULL, n INTEGER NOT NULL, spans BLOB NOT NULL); ' +
      'CREATE INDEX t_trace ON t (trace_id)',
  );
  const insert = prepare();
  return { exec, insert: (args: unknown[]) => insert.run(...args), close };
}

/**
 * The same pre-encoded rows through each driver on one thread, with the store's settings and
 * releases 20 batches behind; and one row per span against one row per (batch, trace).
 */
function rawInserts(): void {
  const perTrace = batches.map((b) => groupByTrace(b).map((g) => [g[0].traceId, g.length, serialize(g)]));
  const perSpan = batches.map((b) => b.map((s) => [s.traceId, 1, serialize([s])]));
  for (const driver of drivers()) {
    for (const [layout, rows] of [
      ['row per (batch, trace)', perTrace],
      ['row per span', perSpan],
    ] as const) {
      const db = driver.open(join(dir, `raw-${driver.name.replace(/\W/g, '')}-${layout.length}.db`));
      const traces = batches.map((b) => JSON.stringify([...new Set(b.map((s) => s.traceId))]));
      const step = (i: number) => {
        db.exec('BEGIN');
        for (const row of rows[i % DISTINCT_BATCHES]) db.insert(row);
        db.exec('COMMIT');
        if (i >= 20)
          db.exec(
            `DELETE FROM t WHERE trace_id IN (SELECT value FROM json_each('${traces[(i - 20) % DISTINCT_BATCHES]}'))`,
          );
      };
      for (let i = 0; i < 20; i += 1) step(i);
      const start = performance.now();
      for (let i = 20; i < rounds + 20; i += 1) step(i);
      record(`${driver.name}: insert pre-encoded, ${layout}`, rounds * BATCH_SIZE, performance.now() - start);
      db.close();
    }
  }
}

try {
  console.log(
    `node ${process.version}, ${TOTAL_SPANS} spans in batches of ${BATCH_SIZE} ` +
      `(${TRACES_PER_BATCH} traces x ${SPANS_PER_TRACE} spans)`,
  );
  codecs();
  for (const writer of ['thread', 'inline'] as const) {
    for (const concurrency of [1, 4]) await storeAppend(writer, 'normal', concurrency);
  }
  await storeAppend('thread', 'full', 4);
  await storeReads();
  rawInserts();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
