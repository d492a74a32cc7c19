/**
 * How long a simulated participant "thinks" before answering (`response_speed`). Messages arriving
 * meanwhile restart the delay and are answered together. Delays come from a seeded generator, so
 * `--seed` makes them repeatable.
 */
import type { ResponseSpeed } from '../scenario/scenario.ts';

export const THINKING_DELAY_MS: Record<ResponseSpeed, { min: number; max: number }> = {
  fast: { min: 2000, max: 2999 },
  medium: { min: 5000, max: 5999 },
  slow: { min: 8000, max: 9999 },
};

export type Random = () => number;

/** A delay in milliseconds; 0 when the speed is unset or delays are off. */
export function thinkingDelay(speed: ResponseSpeed | undefined, random: Random, enabled: boolean): number {
  if (!speed || !enabled) return 0;
  const { min, max } = THINKING_DELAY_MS[speed];
  return min + Math.floor(random() * (max - min + 1));
}

/** mulberry32: a small, fast, seeded generator of numbers in [0, 1). */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A generator for one actor, derived from the run seed and the actor's name. */
export function actorRandom(seed: number, name: string): Random {
  let hash = 2166136261;
  for (const char of name) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return seededRandom((seed ^ hash) >>> 0);
}
