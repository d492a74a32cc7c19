/**
 * The paced load generator of `npm run bench:evaluate`: posts copies of one protobuf template body
 * (100 agent traces of 10 spans) at a fixed rate, each with new trace ids (the first four bytes of
 * every trace id are a request counter), from its own process.
 * Input (argv[2]): JSON { url, templateFile, offsetsFile, bodiesPerSecond, seconds, counterBase? }.
 * Output (stdout): one JSON line with the figures.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

interface Options {
  url: string;
  templateFile: string;
  offsetsFile: string;
  bodiesPerSecond: number;
  seconds: number;
  counterBase?: number;
}

const options = JSON.parse(process.argv[2]) as Options;
const template = readFileSync(options.templateFile);
const offsets = JSON.parse(readFileSync(options.offsetsFile, 'utf8')) as number[];
const target = new URL(options.url);
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
let sent = 0;
let acknowledged = 0;
let rejected = 0;
const latencies: number[] = [];

function post(counter: number): Promise<void> {
  const payload = Buffer.from(template);
  for (const offset of offsets) payload.writeUInt32BE(counter >>> 0, offset);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/x-protobuf', 'content-length': payload.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) {
            acknowledged++;
            latencies.push(performance.now() - t0);
          } else rejected++;
          resolve();
        });
      },
    );
    req.on('error', () => {
      rejected++;
      resolve();
    });
    req.end(payload);
  });
}

const started = performance.now();
const total = Math.round(options.bodiesPerSecond * options.seconds);
const inFlight: Promise<void>[] = [];
for (let i = 0; i < total; i++) {
  // Fixed schedule: body i leaves at i / rate seconds, whatever the previous answers took.
  const due = started + (i * 1000) / options.bodiesPerSecond;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  inFlight.push(post((options.counterBase ?? 0) + i));
  sent++;
}
await Promise.all(inFlight);
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
agent.destroy();
process.stdout.write(
  `${JSON.stringify({ elapsed, sent, acknowledged, rejected, p50Ms: pct(0.5), p99Ms: pct(0.99) })}\n`,
);
