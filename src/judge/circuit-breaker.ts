/**
 * A circuit breaker per judge model endpoint (base URL + model). After `failureThreshold`
 * consecutive retryable failures (429, 5xx, 529, connection errors) it opens: no call goes to that
 * model, each is refused at once with a `CircuitOpenError` (retryable, so the collector defers the
 * evaluation as it does for any outage). Once a cool-down has passed it is half-open and lets one
 * probe call through; a success closes it, a failure opens it again for twice the cool-down (5 s
 * doubling to 5 min by default). During an outage the provider so receives about one request per
 * cool-down, not one per waiting evaluation.
 *
 * An answer that is not an outage (a 400) counts as a success: the endpoint is up. A success of any
 * call closes the breaker; failures of calls that were in flight when it opened are not counted
 * again. Time comes from `now` (the collector's clock), so every transition is tested on fake time.
 * One registry per collector (`createCircuitBreakers`): nothing is shared between two collectors
 * in one process.
 */

export type CircuitState = 'closed' | 'open' | 'half-open';

/** The `evalon.judge.circuit.state` gauge's values. */
export const CIRCUIT_STATE_VALUES: Readonly<Record<CircuitState, number>> = { closed: 0, open: 1, 'half-open': 2 };
export const DEFAULT_FAILURE_THRESHOLD = 5;
export const DEFAULT_COOL_DOWN = { baseMs: 5_000, maxMs: 300_000 };

/** A call refused because its model's circuit is open: an outage, so the evaluation waits and runs again. */
export class CircuitOpenError extends Error {
  readonly retryable = true;
  readonly errorType = 'circuit_open';
  readonly model: string;
  constructor(model: string, baseURL: string, retryInMs: number, lastFailure?: string) {
    super(
      `model call to ${model} not made: the circuit of ${baseURL} is open after repeated failures` +
        `${lastFailure ? ` (last: ${lastFailure})` : ''}; next probe in ${Math.max(0, Math.ceil(retryInMs / 1000))} s`,
    );
    this.name = 'CircuitOpenError';
    this.model = model;
  }
}

/** The right to make one call, settled with its result. */
export interface CircuitPermit {
  /** The endpoint answered (any answer that is not an outage). */
  succeeded(): void;
  /** A retryable failure: 429, 5xx, 529, a connection error (`reason` says which, for messages). */
  failed(reason?: string): void;
  /** Neither (the call was aborted): a probe's place is given back. */
  released(): void;
}

export interface CircuitBreaker {
  /** A permit for one call now, or undefined while the circuit is open (or a probe is out). */
  acquire(): CircuitPermit | undefined;
  state(): CircuitState;
  /** How long until the next probe may go, while open (0 otherwise). */
  retryInMs(): number;
  /** What the last failure was, as its permit said. */
  lastFailure(): string | undefined;
}

export interface CircuitBreakerOptions {
  now(): number;
  failureThreshold?: number;
  coolDown?: { baseMs: number; maxMs: number };
  /** Called on every change of state (for the log). */
  onChange?(from: CircuitState, to: CircuitState): void;
}

export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const threshold = Math.max(1, options.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD);
  const { baseMs, maxMs } = options.coolDown ?? DEFAULT_COOL_DOWN;
  let open = false;
  let failures = 0;
  let coolDownMs = baseMs;
  let retryAt = 0;
  let probeOut = false;
  let lastFailure: string | undefined;

  function state(): CircuitState {
    if (!open) return 'closed';
    return probeOut || options.now() >= retryAt ? 'half-open' : 'open';
  }

  function move(change: () => void): void {
    const from = state();
    change();
    const to = state();
    if (from !== to) options.onChange?.(from, to);
  }

  function close(): void {
    move(() => {
      open = false;
      probeOut = false;
      failures = 0;
      coolDownMs = baseMs;
    });
  }

  function openFor(ms: number): void {
    move(() => {
      open = true;
      probeOut = false;
      coolDownMs = ms;
      retryAt = options.now() + ms;
    });
  }

  function permit(probe: boolean): CircuitPermit {
    let settled = false;
    const once =
      <A extends unknown[]>(body: (...args: A) => void) =>
      (...args: A) => {
        if (settled) return;
        settled = true;
        body(...args);
      };
    return {
      succeeded: once(close),
      failed: once((reason?: string) => {
        if (reason !== undefined) lastFailure = reason;
        if (probe) openFor(Math.min(maxMs, coolDownMs * 2));
        else if (!open && ++failures >= threshold) openFor(baseMs);
      }),
      released: once(() => {
        if (probe) move(() => (probeOut = false));
      }),
    };
  }

  return {
    acquire() {
      if (!open) return permit(false);
      if (probeOut || options.now() < retryAt) return undefined;
      move(() => (probeOut = true));
      return permit(true);
    },
    state,
    retryInMs: () => (open && !probeOut ? Math.max(0, retryAt - options.now()) : 0),
    lastFailure: () => lastFailure,
  };
}

/** One breaker per (base URL, model), made on first use. */
export interface CircuitBreakers {
  for(baseURL: string, model: string): CircuitBreaker;
  /** Every breaker made so far, with its state. */
  states(): Array<{ baseURL: string; model: string; state: CircuitState }>;
}

export function createCircuitBreakers(
  options: Omit<CircuitBreakerOptions, 'onChange'> & {
    onChange?(endpoint: { baseURL: string; model: string }, from: CircuitState, to: CircuitState): void;
  },
): CircuitBreakers {
  const breakers = new Map<string, { baseURL: string; model: string; breaker: CircuitBreaker }>();
  return {
    for(baseURL, model) {
      const key = `${baseURL}\u0000${model}`;
      let found = breakers.get(key);
      if (!found) {
        const endpoint = { baseURL, model };
        const breaker = createCircuitBreaker({
          ...options,
          onChange: (from, to) => options.onChange?.(endpoint, from, to),
        });
        found = { ...endpoint, breaker };
        breakers.set(key, found);
      }
      return found.breaker;
    },
    states: () =>
      [...breakers.values()].map(({ baseURL, model, breaker }) => ({ baseURL, model, state: breaker.state() })),
  };
}
