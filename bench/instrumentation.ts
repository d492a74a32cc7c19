/**
 * `node bench/instrumentation.ts` — what `invokeAgent` costs an agent call.
 *
 * 1. Latency added per wrapped agent call, excluding export: the same trivial agent (an async
 *    function answering a string) called bare and through `invokeAgent`, in alternating rounds, with
 *    `register()` set up as in production (bounded batch processor) but an exporter that drops
 *    spans, so export work is out of the picture. Median, p90 and p99 per call, content capture off
 *    and on.
 * 2. CPU per span: process CPU time (user + system) of N wrapped calls minus N bare calls, per span;
 *    once with the dropping exporter (the SDK's share) and once with the real OTLP/protobuf exporter
 *    posting to a receiver in another process (serialization and HTTP included).
 *
 * Options: --calls N (calls per variant and round, default 20000), --rounds N (default 5).
 */
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { invokeAgent, register, type Telemetry } from '../src/instrumentation/index.ts';

const { values } = parseArgs({
  options: { calls: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '5' } },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);

/** Drops what it is given, successfully: export costs nothing. */
class DroppingSpanExporter implements SpanExporter {
  spans = 0;
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.spans += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  }
  shutdown = async () => {};
}

const QUESTION = 'Where is my order A-17? It was supposed to arrive on Monday.';
const ANSWER = 'Order A-17 has shipped with UPS and should arrive on Thursday.';
const agent = async () => {
  await Promise.resolve();
  return ANSWER;
};
const options = {
  id: 'support-agent',
  name: 'Support agent',
  roles: ['customer-facing'],
  conversationId: 'conv-1',
  input: QUESTION,
};

async function timeCalls(call: () => Promise<unknown>, samples: Float64Array, offset: number): Promise<void> {
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    await call();
    samples[offset + i] = Number(process.hrtime.bigint() - start);
  }
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function latency(captureContent: boolean): Promise<{ bare: Float64Array; wrapped: Float64Array }> {
  const telemetry = register({ exporter: new DroppingSpanExporter(), captureContent, shutdownOnExit: false });
  const bare = new Float64Array(CALLS * ROUNDS);
  const wrapped = new Float64Array(CALLS * ROUNDS);
  // Warm up both paths (JIT), then alternate rounds so that drift hits both alike.
  for (let i = 0; i < 5000; i++) {
    await agent();
    await invokeAgent(options, agent);
  }
  for (let round = 0; round < ROUNDS; round++) {
    await timeCalls(agent, bare, round * CALLS);
    await timeCalls(() => invokeAgent(options, agent), wrapped, round * CALLS);
  }
  await telemetry.shutdown();
  return { bare: bare.sort(), wrapped: wrapped.sort() };
}

async function cpuPerSpan(telemetryFor: () => Telemetry): Promise<{ nsPerSpan: number; counts: string }> {
  const telemetry = telemetryFor();
  const cpuNs = (before: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(before);
    return (used.user + used.system) * 1000;
  };
  // Flushing every 256 calls keeps one export in flight at a time, as the batch processor's timer
  // would, so that no span is dropped and every span's export work is counted.
  const wrappedCalls = async () => {
    for (let i = 1; i <= CALLS; i++) {
      await invokeAgent(options, agent);
      if (i % 256 === 0) await telemetry.forceFlush();
    }
    await telemetry.forceFlush();
  };
  await wrappedCalls(); // warm-up
  let bareNs = 0;
  let wrappedNs = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let before = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await agent();
    bareNs += cpuNs(before);
    before = process.cpuUsage();
    await wrappedCalls();
    wrappedNs += cpuNs(before);
  }
  const { exportedSpans, failedSpans, droppedSpans } = telemetry.stats();
  await telemetry.shutdown();
  return {
    nsPerSpan: (wrappedNs - bareNs) / (CALLS * ROUNDS),
    counts: `${exportedSpans} spans exported, ${failedSpans} failed, ${droppedSpans} dropped`,
  };
}

/** An OTLP/HTTP receiver in its own process that answers 200 and discards the body. */
async function startReceiver(): Promise<{ url: string; stop(): void }> {
  const code = `require('node:http')
    .createServer((q, s) => {
      q.resume();
      q.on('end', () => { s.writeHead(200, { 'content-type': 'application/x-protobuf' }); s.end(); });
    })
    .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

const us = (ns: number) => (ns / 1000).toFixed(2);

const cpuModel = cpus()[0]?.model ?? 'cpu';
console.log(
  `invokeAgent overhead — ${CALLS} calls × ${ROUNDS} rounds per variant; ` +
    `Node ${process.version}, ${cpus().length} × ${cpuModel}`,
);
console.log('\nLatency per agent call (µs), export excluded:');
console.log(`${'variant'.padEnd(34)}  median     p90     p99   added median`);
for (const captureContent of [false, true]) {
  const { bare, wrapped } = await latency(captureContent);
  const label = captureContent ? 'content capture on' : 'content capture off';
  const row = (name: string, sorted: Float64Array) =>
    `${name.padEnd(34)} ${us(percentile(sorted, 0.5)).padStart(7)} ${us(percentile(sorted, 0.9)).padStart(7)} ` +
    `${us(percentile(sorted, 0.99)).padStart(8)}`;
  console.log(row(`bare agent (${label})`, bare));
  console.log(`${row('invokeAgent', wrapped)} ${us(percentile(wrapped, 0.5) - percentile(bare, 0.5)).padStart(10)}`);
}

console.log('\nCPU per span (µs of process CPU, wrapped minus bare, export work included):');
const dropping = await cpuPerSpan(() => register({ exporter: new DroppingSpanExporter(), shutdownOnExit: false }));
console.log(`  SDK only (dropping exporter), content off:      ${us(dropping.nsPerSpan)}   (${dropping.counts})`);
const droppingContent = await cpuPerSpan(() =>
  register({ exporter: new DroppingSpanExporter(), captureContent: true, shutdownOnExit: false }),
);
console.log(
  `  SDK only (dropping exporter), content on:       ${us(droppingContent.nsPerSpan)}   (${droppingContent.counts})`,
);
const receiver = await startReceiver();
try {
  const otlp = await cpuPerSpan(() =>
    register({ endpoint: receiver.url, captureContent: true, shutdownOnExit: false }),
  );
  console.log(`  OTLP/protobuf to a local receiver, content on:  ${us(otlp.nsPerSpan)}   (${otlp.counts})`);
} finally {
  receiver.stop();
}
process.exit();
