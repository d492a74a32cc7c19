/**
 * The completion gate: every asynchronous input to a simulation (a model reply, a remote agent's
 * step, a code agent's step, a thinking timer) completes through it, one at a time, and the run
 * settles (all microtasks drained) before the next completion is delivered. The order of
 * completions is therefore the only thing timing decides, and it is logged.
 *
 * - live/record: operations really run; completions are delivered in the order they finish and
 *   appended to `log()` (with their values when replayable: model calls, remote steps).
 * - replay: replayable operations are not run; their recorded values are delivered in the
 *   recorded order. Non-replayable ones (code agents, in-process tool loops) run again and are
 *   delivered at their recorded position. Same inputs in the same order give the same transcript.
 *
 * The gate also knows when nothing is in flight: the simulation can then never progress, and the
 * runner ends it as stalled instead of waiting for a timeout.
 */
import { createHash } from 'node:crypto';
import { setImmediate as settle } from 'node:timers';
import type { JsonValue } from '../../judge/json-value.ts';
import { invoke } from './invoke.ts';

export type OperationKind = 'model' | 'remote' | 'agent' | 'timer' | 'event_source';

export interface RecordedError {
  name: string;
  message: string;
  status?: number;
}

/** One completion, in delivery order. */
export interface RecordedCompletion {
  kind: OperationKind;
  key: string;
  value?: JsonValue;
  error?: RecordedError;
}

export type GateMode = 'live' | 'record' | 'replay';

export interface TimerHandle {
  readonly promise: Promise<void>;
  cancel(): void;
}

/** Raised in replay when the run asks for something the recording does not hold. */
export class ReplayMismatchError extends Error {
  readonly kind: OperationKind;
  readonly key: string;
  constructor(message: string, kind: OperationKind, key: string) {
    super(message);
    this.name = 'ReplayMismatchError';
    this.kind = kind;
    this.key = key;
  }
}

/** A recorded failure, raised again in replay. */
export class ReplayedError extends Error {
  readonly status?: number;
  constructor(recorded: RecordedError) {
    super(recorded.message);
    this.name = recorded.name;
    if (recorded.status !== undefined) this.status = recorded.status;
  }
}

interface Outcome {
  value?: unknown;
  error?: unknown;
}

interface Pending {
  entry: RecordedCompletion;
  outcome?: Outcome;
  deliver(outcome: Outcome): void;
  cancelled?: boolean;
}

export interface CompletionGateOptions {
  mode?: GateMode;
  /** The completions to replay (mode 'replay'). */
  recording?: readonly RecordedCompletion[];
}

export class CompletionGate {
  readonly mode: GateMode;
  private readonly delivered: RecordedCompletion[] = [];
  private readonly ready: Pending[] = [];
  private inFlight = 0;
  private pumping = false;
  private quietListener: (() => void) | undefined;
  private divergenceListener: ((error: ReplayMismatchError) => void) | undefined;
  // replay state
  private readonly recording: readonly RecordedCompletion[];
  private readonly unclaimed = new Map<string, number[]>();
  private readonly claimed = new Map<number, Pending>();
  private next = 0;

  constructor(options: CompletionGateOptions = {}) {
    this.mode = options.mode ?? 'live';
    this.recording = options.recording ?? [];
    this.recording.forEach((entry, index) => {
      const id = `${entry.kind}:${entry.key}`;
      const list = this.unclaimed.get(id) ?? [];
      list.push(index);
      this.unclaimed.set(id, list);
    });
  }

  /** Completions delivered so far, in order (what `--record` saves). */
  log(): RecordedCompletion[] {
    return this.delivered.slice();
  }

  /** Operations started and not yet delivered. */
  get pending(): number {
    return this.inFlight;
  }

  /** Called when, after a settle, nothing is in flight: the run cannot progress any more. */
  onQuiet(listener: (() => void) | undefined): void {
    this.quietListener = listener;
  }

  /** Called in replay when the run and the recording diverge. */
  onDivergence(listener: ((error: ReplayMismatchError) => void) | undefined): void {
    this.divergenceListener = listener;
  }

  /** Checks for quiet after the current work settles (e.g. right after the kick-off). */
  checkQuietSoon(): void {
    settle(() => this.pump());
  }

  /**
   * Runs an operation through the gate. `replayable` operations are answered from the recording
   * in replay (their value must be JSON); others run again and only their position is replayed.
   */
  run<T>(kind: OperationKind, key: string, operation: () => Promise<T>, replayable: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: RecordedCompletion = { kind, key };
      const pending: Pending = {
        entry,
        deliver: (outcome) => ('error' in outcome ? reject(outcome.error) : resolve(outcome.value as T)),
      };
      this.inFlight++;
      if (this.mode === 'replay') {
        const index = this.claim(kind, key);
        if (index === undefined) {
          this.inFlight--;
          reject(
            new ReplayMismatchError(
              `replay: no recorded ${kind} completion matches ${key} (the scenario, prompts or agent changed since ` +
                'recording; record again)',
              kind,
              key,
            ),
          );
          return;
        }
        this.claimed.set(index, pending);
        const recorded = this.recording[index];
        if (replayable) {
          pending.outcome = recorded.error
            ? { error: new ReplayedError(recorded.error) }
            : { value: structuredClone(recorded.value) };
          this.pump();
          return;
        }
      }
      invoke(operation).then(
        (value) => this.complete(pending, { value }, replayable),
        (error: unknown) => this.complete(pending, { error }, replayable),
      );
    });
  }

  /** A thinking delay. Cancelling it before delivery means it never happened. */
  timer(key: string, ms: number): TimerHandle {
    let cancel = () => {};
    const promise = new Promise<void>((resolve) => {
      const pending: Pending = { entry: { kind: 'timer', key }, deliver: () => resolve() };
      this.inFlight++;
      if (this.mode === 'replay') {
        const index = this.claim('timer', key);
        if (index !== undefined) {
          pending.outcome = { value: null };
          this.claimed.set(index, pending);
        }
        // A timer the recording never saw fire must be cancelled before it matters.
        cancel = () => {
          if (pending.cancelled) return;
          pending.cancelled = true;
          this.inFlight--;
          if (index !== undefined) this.claimed.delete(index);
        };
        this.pump();
        return;
      }
      const handle = setTimeout(() => this.complete(pending, { value: null }, false), ms);
      cancel = () => {
        if (pending.cancelled) return;
        pending.cancelled = true;
        clearTimeout(handle);
        const queued = this.ready.indexOf(pending);
        if (queued >= 0) this.ready.splice(queued, 1);
        if (queued >= 0 || pending.outcome === undefined) this.inFlight--;
      };
    });
    return { promise, cancel: () => cancel() };
  }

  private claim(kind: OperationKind, key: string): number | undefined {
    return this.unclaimed.get(`${kind}:${key}`)?.shift();
  }

  private complete(pending: Pending, outcome: Outcome, replayable: boolean): void {
    if (pending.cancelled) return;
    if (replayable && this.mode !== 'replay') {
      if ('error' in outcome) pending.entry.error = toRecordedError(outcome.error);
      else pending.entry.value = structuredClone(outcome.value) as JsonValue;
    }
    pending.outcome = outcome;
    if (this.mode !== 'replay') this.ready.push(pending);
    this.pump();
  }

  private pump(): void {
    if (this.pumping) return;
    const pending = this.mode === 'replay' ? this.nextReplayed() : this.ready.shift();
    if (pending === undefined) {
      this.checkStuck();
      return;
    }
    this.pumping = true;
    this.inFlight--;
    this.delivered.push(pending.entry);
    pending.deliver(pending.outcome!);
    settle(() => {
      this.pumping = false;
      this.pump();
    });
  }

  private nextReplayed(): Pending | undefined {
    const pending = this.claimed.get(this.next);
    if (pending === undefined || pending.outcome === undefined) return undefined;
    this.claimed.delete(this.next);
    this.next++;
    return pending;
  }

  private checkStuck(): void {
    if (this.inFlight === 0) {
      this.quietListener?.();
      return;
    }
    if (this.mode !== 'replay') return;
    // Diverged when every claimed operation has its outcome but the next recorded one was never asked for.
    const running = [...this.claimed.values()].some((pending) => pending.outcome === undefined);
    const orphans = this.inFlight - this.claimed.size;
    if (running || this.claimed.has(this.next)) return;
    settle(() => {
      if (
        this.pumping ||
        this.claimed.has(this.next) ||
        [...this.claimed.values()].some((p) => p.outcome === undefined)
      )
        return;
      if (this.inFlight === 0) return this.quietListener?.();
      const expected = this.recording[this.next];
      const what = expected ? `${expected.kind} ${expected.key}` : 'nothing more';
      this.divergenceListener?.(
        new ReplayMismatchError(
          `replay: the run diverged from the recording (it waits on ${this.inFlight} operation(s), ${orphans} never ` +
            `recorded; the recording expects ${what} next)`,
          expected?.kind ?? 'model',
          expected?.key ?? '',
        ),
      );
    });
  }
}

function toRecordedError(error: unknown): RecordedError {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    return { name: error.name, message: error.message, ...(typeof status === 'number' ? { status } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

/** A stable key for a JSON request: sha256 of its canonical (key-sorted) JSON. */
export function requestKey(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 32);
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
