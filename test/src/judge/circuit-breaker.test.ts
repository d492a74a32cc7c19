/**
 * The judge circuit breaker on fake time, every transition: closed → open after 5 consecutive
 * retryable failures (a success in between starts the count again), open refuses calls until the
 * cool-down has passed, half-open lets exactly one probe through, a failed probe opens it for twice
 * the cool-down (5 s doubling to 5 min), a successful one closes it and resets the cool-down, an
 * aborted probe gives its place back. One breaker per base URL and model.
 */
import { describe, expect, it } from 'vitest';
import {
  CIRCUIT_STATE_VALUES,
  createCircuitBreaker,
  createCircuitBreakers,
  type CircuitState,
} from '../../../src/judge/circuit-breaker.ts';

function setUp() {
  let now = 0;
  const changes: Array<[CircuitState, CircuitState]> = [];
  const breaker = createCircuitBreaker({ now: () => now, onChange: (from, to) => changes.push([from, to]) });
  const fail = (times = 1) => {
    for (let i = 0; i < times; i++) breaker.acquire()!.failed();
  };
  return {
    breaker,
    changes,
    fail,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('a circuit breaker', () => {
  it('opens after 5 consecutive retryable failures, not after 4, and a success starts the count again', () => {
    const { breaker, fail, changes } = setUp();
    fail(4);
    expect(breaker.state()).toBe('closed');
    breaker.acquire()!.succeeded();
    fail(4);
    expect(breaker.state()).toBe('closed');
    fail();
    expect(breaker.state()).toBe('open');
    expect(changes).toEqual([['closed', 'open']]);
    expect(breaker.acquire()).toBeUndefined();
    expect(breaker.retryInMs()).toBe(5_000);
  });

  it('lets one probe through per cool-down, doubling from 5 s to at most 5 min while probes fail', () => {
    const { breaker, fail, advance } = setUp();
    fail(5);
    const coolDowns: number[] = [];
    for (let round = 0; round < 9; round++) {
      const wait = breaker.retryInMs();
      coolDowns.push(wait);
      advance(wait - 1);
      expect(breaker.acquire()).toBeUndefined();
      advance(1);
      expect(breaker.state()).toBe('half-open');
      const probe = breaker.acquire()!;
      expect(probe).toBeDefined();
      // While the probe is out, nothing else goes.
      expect(breaker.acquire()).toBeUndefined();
      expect(breaker.state()).toBe('half-open');
      probe.failed();
      expect(breaker.state()).toBe('open');
    }
    expect(coolDowns).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });

  it('closes on a successful probe and starts the next outage from 5 s again', () => {
    const { breaker, fail, advance, changes } = setUp();
    fail(5);
    advance(5_000);
    breaker.acquire()!.failed();
    advance(10_000);
    breaker.acquire()!.succeeded();
    expect(breaker.state()).toBe('closed');
    expect(breaker.acquire()).toBeDefined();
    fail(5);
    expect(breaker.retryInMs()).toBe(5_000);
    expect(changes).toEqual([
      ['closed', 'open'],
      ['half-open', 'open'],
      ['half-open', 'closed'],
      ['closed', 'open'],
    ]);
  });

  it('gives an aborted probe’s place back, and does not count again calls that were in flight when it opened', () => {
    const { breaker, fail, advance } = setUp();
    const inFlight = breaker.acquire()!;
    fail(5);
    inFlight.failed();
    expect(breaker.retryInMs()).toBe(5_000);
    advance(5_000);
    breaker.acquire()!.released();
    expect(breaker.state()).toBe('half-open');
    const probe = breaker.acquire()!;
    probe.succeeded();
    probe.failed(); // settled once: no effect
    expect(breaker.state()).toBe('closed');
  });

  it('closes when any call succeeds, the endpoint having answered', () => {
    const { breaker, fail } = setUp();
    const slow = breaker.acquire()!;
    fail(5);
    slow.succeeded();
    expect(breaker.state()).toBe('closed');
  });
});

describe('the circuit breakers of a collector', () => {
  it('keep one breaker per base URL and model, and report their states as the gauge values', () => {
    let now = 0;
    const breakers = createCircuitBreakers({ now: () => now });
    const a = breakers.for('https://api.anthropic.com', 'claude-a');
    expect(breakers.for('https://api.anthropic.com', 'claude-a')).toBe(a);
    for (let i = 0; i < 5; i++) a.acquire()!.failed();
    breakers.for('https://gateway.internal', 'claude-a');
    expect(breakers.states()).toEqual([
      { baseURL: 'https://api.anthropic.com', model: 'claude-a', state: 'open' },
      { baseURL: 'https://gateway.internal', model: 'claude-a', state: 'closed' },
    ]);
    now += 5_000;
    expect(breakers.states()[0].state).toBe('half-open');
    expect(CIRCUIT_STATE_VALUES).toEqual({ closed: 0, open: 1, 'half-open': 2 });
  });
});
