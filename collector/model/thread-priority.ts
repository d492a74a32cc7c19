/**
 * Worker threads that yield the CPU to the event loop. The event loop receives spans and answers
 * the agents that sent them, which wait for that answer; what the collector's background threads
 * do — building records (the interactions processor's recorder thread) and writing records,
 * conversations and evaluations into a SQLite ledger (its writer thread) — nobody waits for a
 * second sooner. When they all want the same cores, the scheduler gives the event loop the larger
 * share and the background threads the rest; whenever the event loop waits (for the disk, for the
 * next request) they have the cores to themselves, so they catch up as soon as a burst ends.
 *
 * Linux only: there a nice value belongs to one thread (`setpriority` given a thread id) and
 * `/proc/thread-self` names the calling thread. Elsewhere the threads keep the process's priority.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * How far below the event loop a background thread runs: with a nice value 10 higher it weighs
 * about a tenth of the event loop when both are runnable. Measured in docs/benchmarks.md ("Ingest").
 */
export const BACKGROUND_NICENESS_STEPS = 10;

/** The highest nice value (the lowest priority) a thread can have. */
const LOWEST = 19;

/**
 * Raises the calling thread's nice value by `steps` from its current one (a new thread starts with
 * the nice value of the thread that started it, so a collector started with `nice` keeps its
 * threads' order), up to the lowest priority. Returns the thread's new nice value, or undefined
 * where a thread's priority cannot be set (not Linux, no /proc).
 */
export function lowerThisThreadPriority(steps: number = BACKGROUND_NICENESS_STEPS): number | undefined {
  if (process.platform !== 'linux') return undefined;
  let threadId: number;
  try {
    threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(threadId) || threadId <= 0) return undefined;
  const niceness = Math.min(LOWEST, getPriority(threadId) + steps);
  // Raising one's own nice value needs no privilege; a failure here would only keep it as it is.
  try {
    setPriority(threadId, niceness);
  } catch {
    return undefined;
  }
  return niceness;
}
