/**
 * The load generator of `npm run bench:ingest`, run as its own process so that the collector's
 * figures are not flattered by sharing an event loop with the sender.
 *
 * It posts copies of one protobuf template body, rewriting the first four bytes of every trace id
 * with a request counter so each request carries new traces, and counts acknowledged spans.
 * Input (argv[2]): JSON { url, templateFile, offsetsFile, spansPerBody, seconds?, requests?, concurrency,
 * conversationOffsetsFile? }. With conversationOffsetsFile, each request's conversation ids are new
 * too: the 4 characters at each offset become the request counter in base 36. With timeOffsetsFile,
 * every span's times move by the same amount, so that the body's latest end is the time it is sent.
 * With requestsPerSecond, requests start on that schedule instead of as fast as acknowledged.
 * Output (stdout): one JSON line with the figures, the acknowledged spans and throttled requests of
 * each second among them.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

interface SenderOptions {
  url: string;
  templateFile: string;
  offsetsFile: string;
  spansPerBody: number;
  seconds?: number;
  requests?: number;
  concurrency: number;
  /** Added to the request counter, so two runs against one collector never repeat a trace id. */
  counterBase?: number;
  conversationOffsetsFile?: string;
  timeOffsetsFile?: string;
  /** Requests a second in all, started on a schedule (none: as fast as acknowledged). */
  requestsPerSecond?: number;
  /**
   * After a throttled request (429, 503), wait what the answer's `Retry-After` asks, as the
   * OpenTelemetry SDK's OTLP exporters do, instead of 50 ms (a sender that presses harder than
   * they do: the collector reads every request it refuses).
   */
  honourRetryAfter?: boolean;
}

const options = JSON.parse(process.argv[2]) as SenderOptions;
const template = readFileSync(options.templateFile);
const offsets = JSON.parse(readFileSync(options.offsetsFile, 'utf8')) as number[];
const target = new URL(options.url);

let next = 0;
let acknowledged = 0;
let throttled = 0;
let failed = 0;
const latencies: number[] = [];
/** Per second of the run (by when the answer came): spans acknowledged, requests throttled. */
const acknowledgedBySecond: number[] = [];
const throttledBySecond: number[] = [];

function countInSecond(counts: number[], amount: number): void {
  const second = Math.floor((performance.now() - started) / 1000);
  while (counts.length <= second) counts.push(0);
  counts[second] += amount;
}

const conversationOffsets = options.conversationOffsetsFile
  ? (JSON.parse(readFileSync(options.conversationOffsetsFile, 'utf8')) as number[])
  : [];

const times = options.timeOffsetsFile
  ? (JSON.parse(readFileSync(options.timeOffsetsFile, 'utf8')) as { offsets: number[]; latest: string })
  : undefined;

/**
 * The body of request `counter`, written into `into` (one buffer per worker, used again for each of
 * its requests once the previous one is answered): only the bytes that change from the template are
 * written, so that the sender, which shares the machine with the collector, spends next to nothing
 * on a request but its write to the socket.
 */
function body(into: Buffer, counter: number): Buffer {
  if (times) {
    const shift = BigInt(Date.now()) * 1_000_000n - BigInt(times.latest);
    for (const offset of times.offsets) into.writeBigUInt64LE(template.readBigUInt64LE(offset) + shift, offset);
  }
  for (const offset of offsets) into.writeUInt32BE(counter >>> 0, offset);
  if (conversationOffsets.length > 0) {
    const prefix = (counter % 36 ** 4).toString(36).padStart(4, '0');
    for (const offset of conversationOffsets) into.write(prefix, offset, 'ascii');
  }
  return into;
}

/**
 * A `Retry-After` header in milliseconds: seconds, or an HTTP date; without one, the OTLP
 * exporters' first back-off (1 s).
 */
function retryAfterMsOf(header: string | undefined): number {
  if (header === undefined) return 1000;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? 1000 : Math.max(0, at - Date.now());
}

/**
 * Posts `payload`; resolves with the status once the answer has ended and the payload is no longer
 * being written (the caller then writes its next body into the same buffer).
 */
function post(payload: Buffer): Promise<{ status: number; retryAfterMs: number }> {
  return new Promise((resolve, reject) => {
    let status: number | undefined;
    let retryAfterMs = 0;
    let written = false;
    const settle = () => {
      if (status !== undefined && written) resolve({ status, retryAfterMs });
    };
    const req = request(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: keepAlive,
        headers: { 'content-type': 'application/x-protobuf', 'content-length': payload.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          status = res.statusCode ?? 0;
          retryAfterMs = retryAfterMsOf(res.headers['retry-after']);
          settle();
        });
      },
    );
    req.on('error', reject);
    // 'finish': every byte handed to the socket; 'close': a request whose socket went away.
    const done = () => {
      written = true;
      settle();
    };
    req.on('finish', done);
    req.on('close', done);
    req.end(payload);
  });
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: options.concurrency });

const started = performance.now();
const deadline = options.seconds !== undefined ? started + options.seconds * 1000 : Infinity;
const limit = options.requests ?? Infinity;

let inFlight = 0;
let acknowledgedRequests = 0;
let scheduled = 0;

/** With a rate, waits for the next request's slot on the schedule; a late slot starts at once. */
async function paced(): Promise<void> {
  if (!options.requestsPerSecond) return;
  const slot = started + (scheduled++ * 1000) / options.requestsPerSecond;
  const wait = slot - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

async function worker(): Promise<void> {
  // This worker's body, written anew for each request once the one before it is answered.
  const own = Buffer.from(template);
  // With a request limit, stop once that many requests are acknowledged (throttled ones are retried).
  while (performance.now() < deadline && acknowledgedRequests + inFlight < limit) {
    await paced();
    if (performance.now() >= deadline) break;
    const payload = body(own, (options.counterBase ?? 0) + next++);
    const t0 = performance.now();
    inFlight++;
    const { status, retryAfterMs } = await post(payload).catch(() => ({ status: 0, retryAfterMs: 0 }));
    inFlight--;
    if (status === 200) {
      acknowledgedRequests++;
      acknowledged += options.spansPerBody;
      latencies.push(performance.now() - t0);
      countInSecond(acknowledgedBySecond, options.spansPerBody);
    } else if (status === 429 || status === 503) {
      throttled++;
      countInSecond(throttledBySecond, 1);
      await new Promise((resolve) => setTimeout(resolve, options.honourRetryAfter ? retryAfterMs : 50));
    } else failed++;
  }
}

await Promise.all(Array.from({ length: options.concurrency }, worker));
const elapsed = (performance.now() - started) / 1000;
// Both series cover every second of the run, the quiet ones as 0.
for (const counts of [acknowledgedBySecond, throttledBySecond])
  while (counts.length < Math.ceil(elapsed)) counts.push(0);
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
keepAlive.destroy();
process.stdout.write(
  `${JSON.stringify({
    elapsed,
    acknowledgedSpans: acknowledged,
    spansPerSecond: acknowledged / elapsed,
    throttled,
    failed,
    p50Ms: pct(0.5),
    p99Ms: pct(0.99),
    acknowledgedBySecond,
    throttledBySecond,
  })}\n`,
);
