/**
 * `npm run bench:ingest` — sustained OTLP ingest through receive → assemble → durable ledger.
 *
 * 1. Builds a realistic protobuf body with the real OTel SDK serializer: 1000 spans, 100 agent
 *    traces of 10 spans (invoke_agent, chat and tool children, ~15 attributes a span, ~3 KB of
 *    message content on the chat spans).
 * 2. Decode-only baseline: the collector's decoder on that body, in this process (a full decode into
 *    spans, the yardstick of the goal below), measured before the end-to-end run and again after
 *    it: a virtual machine's speed drifts, and the faster of the two is the yardstick, so that the goal
 *    is not met only because the machine was slow for a moment. Beside it, what the receiver does with a
 *    body: check it and cut it by trace (`receiveTraceRequest`), for information.
 * 3. End to end: the real collector (`evalon collector`, its own process, SQLite ledger) and a
 *    sender process posting copies of the body with fresh trace ids. Figures: acknowledged spans/s
 *    (acknowledged = durable) and its share of the decode-only rate (goal: at least a third), then
 *    how long until every interaction is recorded; the collector's RSS, sampled every 250 ms while
 *    the senders run, and its peak since the warm-up (goal: at most 512 MiB). Second by second:
 *    spans acknowledged, requests throttled, the traces pending and waiting (the recording backlog:
 *    past `max_pending_traces` traces wait, and requests are throttled once they would go past
 *    `max_waiting_traces` too), and the collector's RSS (longer runs, `--seconds 60`, show where it
 *    settles once the backlog stays at the limits).
 * 4. Memory: a second collector holds 100,000 pending traces (settle set to 10 minutes); RSS and
 *    peak RSS (goal: at most 512 MiB). Then as many again, which wait (`max_waiting_traces`): RSS
 *    with both stages full, and what a waiting trace adds.
 *
 * Options: --seconds N (default 20), --concurrency N (default 8), --pending N (default 100000),
 * --skip-pending, --rate N (spans a second offered on a schedule instead of as fast as
 * acknowledged: the memory of two builds compared at the same load, which an unpaced run's figures
 * cannot do on a machine whose speed swings between runs; the goals are measured without it),
 * --retry-after (a throttled sender waits what the collector's Retry-After asks, as the
 * OpenTelemetry SDK's OTLP exporters do, instead of retrying after 50 ms; the goals are measured
 * without it), --max-pending-traces N (the end-to-end collector's `max_pending_traces`, default
 * 100000 as the collector's own: what a bigger or smaller recording backlog does; the goals are
 * measured with the default), --max-waiting-traces N (its `max_waiting_traces`, default 100000).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createKeyMatcher } from '../collector/model/otlp-protobuf/key-matcher.ts';
import { CLASSIFIED_ATTRIBUTES } from '../collector/processor/interactions/classify.ts';
import { decodeTraceRequest, receiveTraceRequest } from '../collector/receiver/otlp/decode.ts';
import { spawnCollector, type CollectorProcess } from '../test/helpers/collector-process.ts';
import {
  SPANS_PER_BODY,
  TRACES_PER_BODY,
  fmt,
  killOnExit,
  line,
  median,
  memory,
  runIngestSender as runSender,
  stats,
  waitForDrain,
  writeTemplateBody,
} from './ingest-support.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '8' },
    pending: { type: 'string', default: '100000' },
    'skip-pending': { type: 'boolean', default: false },
    rate: { type: 'string' },
    'retry-after': { type: 'boolean', default: false },
    'max-pending-traces': { type: 'string', default: '100000' },
    'max-waiting-traces': { type: 'string', default: '100000' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const pendingTarget = Number(values.pending);
const rate = values.rate === undefined ? undefined : Number(values.rate);
if (rate !== undefined && !(rate > 0)) {
  throw new Error(`bench:ingest: --rate takes spans a second, a number above 0 (got "${values.rate}")`);
}
const maxPendingTraces = Number(values['max-pending-traces']);
if (!Number.isInteger(maxPendingTraces) || maxPendingTraces < 1) {
  throw new Error(
    `bench:ingest: --max-pending-traces takes a whole number above 0 (got "${values['max-pending-traces']}")`,
  );
}
const maxWaitingTraces = Number(values['max-waiting-traces']);
if (!Number.isInteger(maxWaitingTraces) || maxWaitingTraces < 0) {
  throw new Error(
    `bench:ingest: --max-waiting-traces takes a whole number, 0 or more (got "${values['max-waiting-traces']}")`,
  );
}
const paced = rate === undefined ? {} : { requestsPerSecond: rate / SPANS_PER_BODY };

const dir = mkdtempSync(join(tmpdir(), 'evalon-bench-ingest-'));

// 1. The template body and the byte offsets of its trace ids.
const { template } = await writeTemplateBody(dir);

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
line(
  `Evalon ingest benchmark — ${cpus().length} vCPU (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ` +
    `load average ${loadAverage()}`,
);
line(
  `body: ${SPANS_PER_BODY} spans, ${TRACES_PER_BODY} traces, ` +
    `${(template.length / 1024 / 1024).toFixed(2)} MiB protobuf`,
);

// 2. Decode-only baseline, and what the receiver does with a body.
function spansPerSecond(decode: () => number): number {
  // The previous run's writes reach the disk first: the kernel's flushing otherwise shares the core.
  spawnSync('sync');
  for (let i = 0; i < 30; i++) decode();
  const t0 = performance.now();
  let decoded = 0;
  while (performance.now() - t0 < 3_000) decoded += decode();
  return decoded / ((performance.now() - t0) / 1000);
}
const decodeOnly = () => spansPerSecond(() => decodeTraceRequest(template, 'protobuf').spans.length);
const decodeBefore = decodeOnly();
line(`decode only (protobuf, one core): ${fmt(decodeBefore)} spans/s`);
const heads = createKeyMatcher(CLASSIFIED_ATTRIBUTES);
const receiveRate = spansPerSecond(() => receiveTraceRequest(template, 'protobuf', heads).batch.spanCount);
line(`  (the receiver's check and cut by trace, for comparison: ${fmt(receiveRate)} spans/s)`);

function configYaml(name: string, settle: string, decisionWait: string, maxPending: number, maxWaiting: number) {
  return `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0 }
processors:
  interactions:
    settle: ${settle}
    decision_wait: ${decisionWait}
    max_pending_traces: ${maxPending}
    max_waiting_traces: ${maxWaiting}
  evaluation:
    ledger:
      sqlite: { path: ${join(dir, `${name}.db`)} }
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`;
}

const collectors: CollectorProcess[] = [];
killOnExit(collectors);

async function startCollector(
  name: string,
  settle: string,
  decisionWait: string,
  maxPending: number,
  maxWaiting: number,
): Promise<CollectorProcess> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, configYaml(name, settle, decisionWait, maxPending, maxWaiting));
  const collector = await spawnCollector(file);
  collectors.push(collector);
  return collector;
}

// 3. End to end.
{
  const collector = await startCollector('e2e', '2s', '30s', maxPendingTraces, maxWaitingTraces);
  const base = {
    url: collector.otlpUrl,
    templateFile: join(dir, 'template.bin'),
    offsetsFile: join(dir, 'offsets.json'),
    spansPerBody: SPANS_PER_BODY,
    concurrency,
    honourRetryAfter: values['retry-after'],
  };
  await runSender({ ...base, seconds: 2, counterBase: 1 << 30 }); // warm-up
  await waitForDrain(collector);
  const before = await stats(collector);
  // The peak RSS from here on (Linux: writing 5 to clear_refs resets VmHWM), and samples meanwhile.
  writeFileSync(`/proc/${collector.child.pid}/clear_refs`, '5');
  const rssSamples: number[] = [];
  const sampling = setInterval(() => rssSamples.push(memory(collector.child.pid!).rssMiB), 250);
  // The recording backlog once a second: what `max_pending_traces` throttles at.
  // Each answer goes to the second it was asked in (answers may come out of order); one that fails
  // is shown as "?".
  const pendingBySecond: number[] = [];
  const waitingBySecond: number[] = [];
  const pendingSampling = setInterval(() => {
    const second = pendingBySecond.push(Number.NaN) - 1;
    waitingBySecond.push(Number.NaN);
    void stats(collector).then(
      (now) => {
        pendingBySecond[second] = now.pendingTraces;
        waitingBySecond[second] = now.waitingTraces ?? 0;
      },
      () => undefined,
    );
  }, 1000);
  const t0 = performance.now();
  const result = await runSender({ ...base, seconds, ...paced });
  const ackedAt = performance.now();
  clearInterval(sampling);
  clearInterval(pendingSampling);
  const peakWhileSending = memory(collector.child.pid!).peakMiB;
  const expectedInteractions = before.interactions + (result.acknowledgedSpans / SPANS_PER_BODY) * TRACES_PER_BODY;
  await waitForDrain(collector, expectedInteractions);
  const drainedAt = performance.now();
  const load =
    (rate === undefined ? '' : `, ${fmt(rate)} spans/s offered`) +
    (values['retry-after'] ? ', a throttled sender waiting what Retry-After asks' : '') +
    (maxPendingTraces === 100_000 ? '' : `, max_pending_traces ${fmt(maxPendingTraces)}`) +
    (maxWaitingTraces === 100_000 ? '' : `, max_waiting_traces ${fmt(maxWaitingTraces)}`);
  line(`end to end, ${concurrency} concurrent senders${load}, ${seconds} s:`);
  line(
    `  acknowledged (durable): ${fmt(result.spansPerSecond)} spans/s — ${fmt(result.acknowledgedSpans)} spans, p50 ` +
      `${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms a request, ${result.throttled} throttled`,
  );
  const thousands = (values: number[]) =>
    values.map((value) => (Number.isFinite(value) ? Math.round(value / 1000) : '?')).join(' ');
  line(`  by second: thousands of spans acknowledged ${thousands(result.acknowledgedBySecond)}`);
  line(`             requests throttled ${result.throttledBySecond.join(' ')}`);
  line(`             thousands of traces pending ${thousands(pendingBySecond)}`);
  line(`             thousands of traces waiting ${thousands(waitingBySecond)}`);
  // The highest of each second's four samples: where RSS settles once the backlog is at the mark.
  const rssBySecond: number[] = [];
  for (let i = 0; i < rssSamples.length; i += 4) rssBySecond.push(Math.max(...rssSamples.slice(i, i + 4)));
  line(`             collector RSS, MiB ${rssBySecond.map((value) => Math.round(value)).join(' ')}`);
  const e2eRate = result.acknowledgedSpans / ((drainedAt - t0) / 1000);
  line(
    `  recorded as interactions: all ${fmt(expectedInteractions - before.interactions)} within ` +
      `${((drainedAt - ackedAt) / 1000).toFixed(1)} s after the last acknowledgement (settle window 2 s)`,
  );
  line(`  end-to-end rate incl. the settle window: ${fmt(e2eRate)} spans/s`);
  const mem = memory(collector.child.pid!);
  const memoryStats = JSON.stringify((await stats(collector)).memory);
  collector.child.kill('SIGTERM');
  await collector.exited;
  const decodeAfter = decodeOnly();
  const decodeRate = Math.max(decodeBefore, decodeAfter);
  line(
    `  acknowledged ÷ decode only: ${((result.spansPerSecond / decodeRate) * 100).toFixed(1)}% ` +
      `(goal: at least 33%; decode only ${fmt(decodeBefore)} spans/s before this run, ${fmt(decodeAfter)} after: ` +
      'the faster is the yardstick)',
  );
  line(
    `  collector RSS while sending: median ${fmt(median(rssSamples))} MiB, max ${fmt(Math.max(...rssSamples))} ` +
      `MiB, peak ${fmt(peakWhileSending)} MiB (goal: at most 512 MiB); after draining ${mem.rssMiB.toFixed(0)} MiB, ` +
      `peak ${mem.peakMiB.toFixed(0)} MiB; ${memoryStats}`,
  );
}

// 4. Pending traces, then as many waiting.
if (!values['skip-pending']) {
  const collector = await startCollector('pending', '10m', '20m', pendingTarget, pendingTarget);
  const requests = Math.ceil(pendingTarget / TRACES_PER_BODY);
  const send = (counterBase: number) =>
    runSender({
      url: collector.otlpUrl,
      templateFile: join(dir, 'template.bin'),
      offsetsFile: join(dir, 'offsets.json'),
      spansPerBody: SPANS_PER_BODY,
      concurrency,
      requests,
      counterBase,
    });
  const result = await send(0);
  const s = await stats(collector);
  const mem = memory(collector.child.pid!);
  line(
    `pending: ${fmt(s.pendingTraces)} traces (${fmt(s.pendingSpans)} spans) held after ` +
      `${fmt(result.acknowledgedSpans)} acknowledged spans at ${fmt(result.spansPerSecond)} spans/s`,
  );
  line(
    `  collector RSS ${mem.rssMiB.toFixed(0)} MiB (goal: at most 512 MiB), peak ${mem.peakMiB.toFixed(0)} MiB; ` +
      `${JSON.stringify(s.memory)}`,
  );
  // The same again: these traces wait (max_waiting_traces), stored, for the pending ones' room.
  const more = await send(requests);
  const w = await stats(collector);
  const after = memory(collector.child.pid!);
  line(
    `  and ${fmt(w.waitingTraces ?? 0)} traces waiting besides, after ${fmt(more.acknowledgedSpans)} more spans at ` +
      `${fmt(more.spansPerSecond)} spans/s: RSS ${after.rssMiB.toFixed(0)} MiB, peak ${after.peakMiB.toFixed(0)} MiB ` +
      `(${(((after.rssMiB - mem.rssMiB) * 1024) / Math.max(1, w.waitingTraces ?? 0)).toFixed(2)} KiB a waiting trace)`,
  );
  collector.child.kill('SIGTERM');
  await collector.exited;
}
line(`load average at the end: ${loadAverage()}`);
rmSync(dir, { recursive: true, force: true });
