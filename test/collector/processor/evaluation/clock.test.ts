/**
 * The evaluation processor's clock: the system clock by default, a bare time-of-day function
 * taken as `now()` with real timers, and timers that fire once or repeatedly until cancelled.
 */
import { expect, it } from 'vitest';
import { clockFrom, sleep, systemClock } from '../../../../collector/processor/evaluation/clock.ts';
import { createManualClock } from './helpers/manual-clock.ts';

it('is the system clock unless one is given; a function is its time of day, on real timers', async () => {
  expect(clockFrom(undefined)).toBe(systemClock);
  const manual = createManualClock();
  expect(clockFrom(manual)).toBe(manual);
  const fixed = clockFrom(() => 42);
  expect(fixed.now()).toBe(42);
  let fired = false;
  fixed.setTimeout(() => (fired = true), 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(fired).toBe(true);
});

it('runs a timeout once and an interval until cancelled; a cancelled timeout never runs', async () => {
  const clock = createManualClock();
  const calls: string[] = [];
  clock.setTimeout(() => calls.push('once'), 100);
  const cancelled = clock.setTimeout(() => calls.push('cancelled'), 50);
  const every = clock.setInterval(() => calls.push(`every@${clock.now()}`), 40);
  cancelled.cancel();
  await clock.advance(100);
  expect(calls.filter((call) => call === 'once')).toHaveLength(1);
  expect(calls.filter((call) => call.startsWith('every'))).toHaveLength(2);
  every.cancel();
  await clock.advance(1_000);
  expect(calls).not.toContain('cancelled');
  expect(calls.filter((call) => call.startsWith('every'))).toHaveLength(2);
  const slept = sleep(clock, 5_000);
  await clock.advance(5_000);
  await slept;
});

it('stops the system clock’s interval when it is cancelled', async () => {
  let fired = 0;
  const timer = systemClock.setInterval(() => fired++, 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  timer.cancel();
  const after = fired;
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(after).toBeGreaterThan(0);
  expect(fired).toBe(after);
});
