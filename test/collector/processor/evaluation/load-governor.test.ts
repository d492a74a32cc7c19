/**
 * The load governor that keeps evaluation starts from starving ingest: it halves the starts per
 * window while the event loop is saturated, doubles them once it has room, and — whatever the
 * new budget — tells a runtime that was refused a start that the window is over, so evaluations
 * never stall. The event loop's utilisation is given by the test; the windows pass on a manual clock.
 */
import { expect, it } from 'vitest';
import { createLoadGovernor, WINDOW_MS } from '../../../../collector/processor/evaluation/load-governor.ts';
import { createManualClock } from './helpers/manual-clock.ts';

function governed(utilisations: number[]) {
  let index = 0;
  const clock = createManualClock();
  const governor = createLoadGovernor({
    utilisation: () => utilisations[Math.min(index++, utilisations.length - 1)],
    clock,
  });
  const windows: number[] = [];
  governor.onWindow(() => windows.push(index));
  return { governor, windows, clock };
}

function startUpTo(governor: ReturnType<typeof createLoadGovernor>, attempts: number): number {
  let started = 0;
  for (let i = 0; i < attempts; i++) if (governor.tryStart()) started++;
  return started;
}

it('does not limit while the event loop has room', async () => {
  const { governor, clock } = governed([0.3]);
  expect(startUpTo(governor, 10_000)).toBe(10_000);
  await clock.advance(WINDOW_MS * 3);
  expect(governor.budget()).toBe(Number.POSITIVE_INFINITY);
  governor.stop();
});

it(
  'halves the starts per window while the loop is ' + 'saturated, never below the minimum, and doubles them back',
  async () => {
    const { governor, clock } = governed([0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.5, 0.5]);
    startUpTo(governor, 400);
    await clock.advance(WINDOW_MS);
    expect(governor.budget()).toBe(200);
    for (let i = 0; i < 8; i++) {
      startUpTo(governor, 1_000);
      await clock.advance(WINDOW_MS);
    }
    expect(governor.budget()).toBe(10);
    await clock.advance(WINDOW_MS);
    expect(governor.budget()).toBe(20);
    governor.stop();
  },
);

it('tells a refused runtime that the window is over even when the budget grew at that moment', async () => {
  // Saturated, then room: the window that refused starts ends with a larger budget.
  const { governor, windows, clock } = governed([0.95, 0.5]);
  startUpTo(governor, 100);
  await clock.advance(WINDOW_MS);
  expect(governor.budget()).toBe(50);
  expect(startUpTo(governor, 80)).toBe(50); // 30 refused
  await clock.advance(WINDOW_MS);
  expect(governor.budget()).toBe(100);
  expect(windows).toHaveLength(1);
  // A window without refusals calls no one.
  startUpTo(governor, 5);
  await clock.advance(WINDOW_MS);
  expect(windows).toHaveLength(1);
  governor.stop();
});
