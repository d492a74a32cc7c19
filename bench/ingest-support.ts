/**
 * What the ingest benchmarks share (`bench/ingest.ts`, `bench/scale.ts`): the realistic template
 * body and the byte offsets of its trace ids, the sender processes, the collector's
 * `/api/v1/stats`, waiting for a collector to drain, and reading a process's memory and CPU.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { buildRealisticSpans } from '../test/fixtures/otlp/realistic-spans.ts';
import type { CollectorProcess } from '../test/helpers/collector-process.ts';

export const SPANS_PER_BODY = 1000;
export const TRACES_PER_BODY = 100;

export interface TemplateBody {
  /** The protobuf body: SPANS_PER_BODY spans in TRACES_PER_BODY agent traces. */
  template: Buffer;
  /** Files the sender processes read: the body, and the offsets of every trace id in it (JSON). */
  templateFile: string;
  offsetsFile: string;
  /**
   * With `uniqueConversations`: the offsets of the 4-character prefix of every conversation id
   * (JSON), which the sender rewrites per request (`conversationOffsetsFile`).
   */
  conversationOffsetsFile?: string;
  /**
   * With `currentTimes`: the offsets of every span's start and end time (fixed64 nanoseconds) and
   * the latest of them (JSON), which the sender moves to the time of each request
   * (`timeOffsetsFile`).
   */
  timeOffsetsFile?: string;
}

/** The prefix of every conversation id in a body with `uniqueConversations`, rewritten per request. */
export const CONVERSATION_PREFIX = '@@@@';

/**
 * Builds the body with the real OTel SDK serializer (1000 spans, 100 agent traces of 10 spans:
 * invoke_agent, chat and tool children, ~15 attributes a span, ~3 KB of message content on the
 * chat spans) and writes it and its trace-id offsets into `dir` for the senders.
 */
export async function writeTemplateBody(
  dir: string,
  options: { uniqueConversations?: boolean; currentTimes?: boolean; variedContent?: boolean } = {},
): Promise<TemplateBody> {
  const spans = await buildRealisticSpans(SPANS_PER_BODY, { variedContent: options.variedContent });
  // Each copy's conversations are then new ones, as an agent's sessions are (not 100 that never end).
  if (options.uniqueConversations)
    for (const span of spans) {
      const id = span.attributes['gen_ai.conversation.id'];
      if (typeof id === 'string')
        (span.attributes as Record<string, unknown>)['gen_ai.conversation.id'] = `${CONVERSATION_PREFIX}-${id}`;
    }
  const template = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
  const offsets: number[] = [];
  for (const traceId of new Set(spans.map((s) => s.spanContext().traceId))) {
    const needle = Buffer.from(traceId, 'hex');
    for (let at = template.indexOf(needle); at >= 0; at = template.indexOf(needle, at + 1)) offsets.push(at);
  }
  const templateFile = join(dir, 'template.bin');
  const offsetsFile = join(dir, 'offsets.json');
  writeFileSync(templateFile, template);
  writeFileSync(offsetsFile, JSON.stringify(offsets));
  const body: TemplateBody = { template, templateFile, offsetsFile };
  if (options.uniqueConversations) {
    const conversationOffsets: number[] = [];
    const prefix = Buffer.from(CONVERSATION_PREFIX);
    for (let at = template.indexOf(prefix); at >= 0; at = template.indexOf(prefix, at + 1))
      conversationOffsets.push(at);
    body.conversationOffsetsFile = join(dir, 'conversation-offsets.json');
    writeFileSync(body.conversationOffsetsFile, JSON.stringify(conversationOffsets));
  }
  if (options.currentTimes) {
    const nanos = (time: [number, number]) => BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
    const times = new Set(spans.flatMap((span) => [nanos(span.startTime), nanos(span.endTime)]));
    const timeOffsets: number[] = [];
    let latest = 0n;
    for (const time of times) {
      if (time > latest) latest = time;
      const needle = Buffer.alloc(8);
      needle.writeBigUInt64LE(time);
      for (let at = template.indexOf(needle); at >= 0; at = template.indexOf(needle, at + 1)) timeOffsets.push(at);
    }
    body.timeOffsetsFile = join(dir, 'time-offsets.json');
    writeFileSync(body.timeOffsetsFile, JSON.stringify({ offsets: timeOffsets, latest: String(latest) }));
  }
  return body;
}

/**
 * The six code evaluators of the evaluation benchmarks, bound to the realistic body's support
 * agent: the two example evaluators (their module is `EXAMPLES`) and four built-ins, through
 * `agents`, a role entry and `*`. YAML for `processors.evaluation.evaluators`, indented 6.
 */
export const EXAMPLES = fileURLToPath(new URL('../examples/evaluators/index.ts', import.meta.url));
export const EVALUATORS = `
      interaction-quality-evaluator: { agents: { support-agent: {} } }
      reply-length-evaluator: { min-length: 20, agents: { support-agent: {} } }
      reply-length: { min-length: 10, max-length: 4000, agent-roles: { customer-facing: {} } }
      contains: { values: [ refund, order ], match: any, target: transcript, agent-roles: { "*": {} } }
      regex: { pattern: 'order #\\d+', agents: { support-agent: {} } }
      tool-call-required: { tools: [ lookup_order ], agents: { support-agent: { trigger-on-failure: true } } }`;
export const EVALUATOR_COUNT = 6;

/** Figures of `bench/ingest-sender.ts` (as fast as the collector acknowledges). */
export interface IngestSenderResult {
  elapsed: number;
  acknowledgedSpans: number;
  spansPerSecond: number;
  throttled: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  /** Spans acknowledged in each second of the run (by when the answer came). */
  acknowledgedBySecond: number[];
  /** Requests throttled (429/503) in each second of the run. */
  throttledBySecond: number[];
}

/** Figures of `bench/evaluate-sender.ts` (paced). */
export interface PacedSenderResult {
  elapsed: number;
  sent: number;
  acknowledged: number;
  rejected: number;
  p50Ms: number;
  p99Ms: number;
}

export interface SenderProcess<T> {
  pid: number;
  result: Promise<T>;
}

/** Starts a sender script of this folder in its own process; `result` is the JSON line it prints. */
export function startSender<T>(
  script: './ingest-sender.ts' | './evaluate-sender.ts' | './conversations-sender.ts',
  options: Record<string, unknown>,
): SenderProcess<T> {
  const sender = fileURLToPath(new URL(script, import.meta.url));
  const child = spawn(process.execPath, [sender, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk));
  const result = new Promise<T>((resolve, reject) => {
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`sender exited with ${code}`)),
    );
  });
  return { pid: child.pid!, result };
}

/** Runs `bench/ingest-sender.ts` to the end. */
export function runIngestSender(options: Record<string, unknown>): Promise<IngestSenderResult> {
  return startSender<IngestSenderResult>('./ingest-sender.ts', options).result;
}

export interface Stats {
  spansReceived: number;
  interactions: number;
  /** Traces whose spans reached more than one replica (PostgreSQL ledger). */
  tracesSplit?: number;
  pendingTraces: number;
  pendingSpans: number;
  /** Traces stored past `max_pending_traces`, waiting for room. */
  waitingTraces?: number;
  memory: Record<string, number>;
  evaluation: {
    triggered: number;
    recorded: number;
    waiting: number;
    claimed: number;
    running: number;
    overflow: boolean;
  };
}

export async function stats(collector: CollectorProcess): Promise<Stats> {
  // A kept-alive connection the server closes just as it is reused fails once (ECONNRESET): ask again.
  for (let attempt = 1; ; attempt++) {
    try {
      return (await (await fetch(`${collector.apiUrl}/api/v1/stats`)).json()) as Stats;
    } catch (error) {
      if (attempt >= 3 || collector.child.exitCode !== null) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Waits until the collector holds no pending trace and (when given) has recorded `interactions`. */
export async function waitForDrain(collector: CollectorProcess, interactions?: number): Promise<void> {
  for (let i = 0; i < 1800; i++) {
    const s = await stats(collector);
    const held = s.pendingTraces + (s.waitingTraces ?? 0);
    if (held === 0 && (interactions === undefined || s.interactions >= interactions)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the collector did not record every interaction within 180 s');
}

/** Kills every collector still running when this process exits, so a failed run leaves none behind. */
export function killOnExit(collectors: CollectorProcess[]): void {
  process.on('exit', () => {
    for (const collector of collectors) if (collector.child.exitCode === null) collector.child.kill('SIGKILL');
  });
}

export function memory(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
}

/** CPU seconds the process (all its threads) has used so far; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en');

/** The middle value (of an even count, the mean of the two middle ones); 0 for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2;
}
export const line = (text = '') => process.stdout.write(`${text}\n`);

/** PostgreSQL server processes started by (descending from) `ancestor`: the postmasters, and all. */
export function postgresProcesses(ancestor: number): { postmasters: number[]; all: number[] } {
  const parents = new Map<number, { ppid: number; comm: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      parents.set(Number(entry), { ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), comm });
    } catch {
      // exited meanwhile
    }
  }
  const descends = (pid: number): boolean => {
    for (let at = parents.get(pid)?.ppid; at !== undefined && at > 1; at = parents.get(at)?.ppid)
      if (at === ancestor) return true;
    return false;
  };
  const all = [...parents].filter(([pid, p]) => p.comm === 'postgres' && descends(pid)).map(([pid]) => pid);
  return { postmasters: all.filter((pid) => parents.get(pid)!.ppid === ancestor), all };
}

/**
 * CPU used by kinds of process over an interval, sampled every 250 ms so that processes which end
 * meanwhile (senders) still count up to their last sample: collectors and senders by pid, the
 * PostgreSQL server (every process of it this process started), this benchmark process, and the
 * whole machine (other engineers' work included) from /proc/stat.
 */
export class CpuSampler {
  readonly #first = new Map<number, number>();
  readonly #last = new Map<number, number>();
  readonly #kinds: Record<string, number[]>;
  readonly #timer: NodeJS.Timeout;
  readonly #t0 = performance.now();
  readonly #machine0 = machineTicks();
  readonly #self0 = process.cpuUsage();

  constructor(kinds: Record<string, number[]>) {
    this.#kinds = { ...kinds, postgres: [] };
    this.#sample(true);
    this.#timer = setInterval(() => this.#sample(false), 250);
  }

  #sample(first: boolean): void {
    const pg = postgresProcesses(process.pid).all;
    this.#kinds.postgres = [...new Set([...this.#kinds.postgres, ...pg])];
    for (const pids of Object.values(this.#kinds)) {
      for (const pid of pids) {
        const used = cpuSeconds(pid);
        if (used === 0) continue;
        // A process first seen after the start began during the interval: from zero.
        if (!this.#first.has(pid)) this.#first.set(pid, first ? used : 0);
        this.#last.set(pid, used);
      }
    }
  }

  /** Stops sampling; "collector 1.10, sender 0.30, postgres 0.40, bench 0.01; machine 1.95 of 2". */
  stop(): string {
    this.#sample(false);
    clearInterval(this.#timer);
    const seconds = (performance.now() - this.#t0) / 1000;
    const cores = (pids: number[]) =>
      pids.reduce((sum, pid) => sum + (this.#last.get(pid) ?? 0) - (this.#first.get(pid) ?? 0), 0) / seconds;
    const self = process.cpuUsage(this.#self0);
    const machine = machineTicks();
    const busy = 1 - (machine.idle - this.#machine0.idle) / (machine.total - this.#machine0.total);
    const parts = Object.entries(this.#kinds).map(([kind, pids]) => `${kind} ${cores(pids).toFixed(2)}`);
    parts.push(`bench ${((self.user + self.system) / 1e6 / seconds).toFixed(2)}`);
    return `${parts.join(', ')}; machine ${(busy * cpus().length).toFixed(2)} of ${cpus().length}`;
  }
}

/** Jiffies of all cores since boot: total, and idle (idle + iowait). */
function machineTicks(): { total: number; idle: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { total: fields.reduce((a, b) => a + b, 0), idle: fields[3] + fields[4] };
}
