/**
 * The load generator of `npm run bench:conversations`, in its own process (the collector's figures
 * are not flattered by sharing an event loop with it). It posts OTLP/JSON bodies of agent
 * invocation spans, one interaction (and trace) each, now-timed.
 *
 * - `fill`: `count` interactions as fast as they are acknowledged, `perBody` a body; each the only
 *   turn of a conversation of its own (or, with `conversations: false`, of none). They stay open.
 * - `paced`: `rate` interactions/s for `seconds`, a body every 50 ms; every interaction is a turn
 *   of a three-turn conversation (one turn a body apart), whose third turn ends it.
 *
 * Input (argv[2]): JSON { url, mode, count?, perBody?, conversations?, rate?, seconds?, prefix }.
 * Output (stdout): one JSON line with the figures.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';

interface Options {
  url: string;
  mode: 'fill' | 'paced';
  count?: number;
  perBody?: number;
  conversations?: boolean;
  rate?: number;
  seconds?: number;
  /** Conversation ids start with it: two runs never share one. */
  prefix: string;
}

const options = JSON.parse(process.argv[2]) as Options;
const target = new URL(options.url);
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
let acknowledged = 0;
let rejected = 0;
const TICK_MS = 50;

const attribute = (key: string, value: string | boolean) =>
  typeof value === 'boolean' ? { key, value: { boolValue: value } } : { key, value: { stringValue: value } };

function span(conversationId: string | undefined, ended: boolean) {
  const now = BigInt(Date.now()) * 1_000_000n;
  return {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    name: 'invoke_agent bench-agent',
    kind: 1,
    startTimeUnixNano: String(now - 20_000_000n),
    endTimeUnixNano: String(now),
    attributes: [
      attribute('gen_ai.operation.name', 'invoke_agent'),
      attribute('gen_ai.agent.id', 'bench-agent'),
      attribute('gen_ai.output.messages', '[{"role":"assistant","parts":[{"type":"text","content":"On its way."}]}]'),
      ...(conversationId !== undefined ? [attribute('gen_ai.conversation.id', conversationId)] : []),
      ...(ended ? [attribute('evalon.conversation.ended', true)] : []),
    ],
  };
}

function post(spans: object[]): Promise<void> {
  const payload = Buffer.from(
    JSON.stringify({
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }],
    }),
  );
  return new Promise((resolve) => {
    const req = request(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) acknowledged += spans.length;
          else rejected += spans.length;
          resolve();
        });
      },
    );
    req.on('error', () => {
      rejected += spans.length;
      resolve();
    });
    req.end(payload);
  });
}

const started = performance.now();
if (options.mode === 'fill') {
  const count = options.count ?? 100_000;
  const perBody = options.perBody ?? 1000;
  for (let sent = 0; sent < count; ) {
    const before = acknowledged;
    const spans = Array.from({ length: Math.min(perBody, count - sent) }, (_, i) =>
      span(options.conversations === false ? undefined : `${options.prefix}-${sent + i}`, false),
    );
    await post(spans);
    // A refused body (backpressure) is sent again after a pause.
    if (acknowledged === before) await new Promise((resolve) => setTimeout(resolve, 100));
    else sent += spans.length;
  }
} else {
  const perTick = Math.max(3, Math.round(((options.rate ?? 1000) * TICK_MS) / 1000));
  const group = Math.floor(perTick / 3);
  const ticks = Math.round(((options.seconds ?? 20) * 1000) / TICK_MS);
  const inFlight: Promise<void>[] = [];
  for (let tick = 0; tick < ticks + 2; tick++) {
    const due = started + tick * TICK_MS;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const spans: object[] = [];
    // Turn 1 of this tick's group, turn 2 of the previous group's, turn 3 (the end) of the one before.
    for (let turn = 0; turn < 3; turn++) {
      const groupTick = tick - turn;
      if (groupTick < 0 || groupTick >= ticks) continue;
      for (let n = 0; n < group; n++) spans.push(span(`${options.prefix}-${groupTick}-${n}`, turn === 2));
    }
    inFlight.push(post(spans));
  }
  await Promise.all(inFlight);
}
const elapsed = (performance.now() - started) / 1000;
agent.destroy();
process.stdout.write(`${JSON.stringify({ elapsed, acknowledged, rejected, perSecond: acknowledged / elapsed })}\n`);
