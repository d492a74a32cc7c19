/**
 * The traces of one request, found by their id's bytes in the body. A request carries a few traces
 * of many spans each: the receiver makes one hex string per trace instead of one per span, and every
 * span of a trace carries that same string, so that the maps keyed by trace id downstream hash it
 * once. An open-addressed table of trace indexes, keyed by the id's bytes where they first appeared.
 */

/** Bytes of a trace id (trace.proto). */
const ID_BYTES = 16;
const INITIAL_SLOTS = 256;

export interface TraceTable {
  /** Trace ids (hex) in order of first appearance. */
  readonly ids: string[];
  /** What the last `indexOf` answered. */
  last: number;
  /** The index in `ids` of the trace whose id is the 16 bytes at `start` of `body`, added when new. */
  indexOf(body: Buffer, start: number): number;
}

export function createTraceTable(): TraceTable {
  const ids: string[] = [];
  /** Where each trace's id first appeared (in the body the table is used with). */
  const starts: number[] = [];
  /** Trace index + 1 per slot; 0 is empty. */
  let slots = new Int32Array(INITIAL_SLOTS);
  let lastStart = -1;

  function slotOf(body: Buffer, start: number, mask: number): number {
    let hash = 0;
    for (let at = start; at < start + ID_BYTES; at += 4) {
      const word = body[at] | (body[at + 1] << 8) | (body[at + 2] << 16) | (body[at + 3] << 24);
      hash = Math.imul(hash ^ word, 0x9e3779b1);
      hash ^= hash >>> 15;
    }
    return hash & mask;
  }

  function grow(body: Buffer): void {
    slots = new Int32Array(slots.length * 2);
    const mask = slots.length - 1;
    for (let index = 0; index < starts.length; index++) {
      let slot = slotOf(body, starts[index], mask);
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = index + 1;
    }
  }

  const table: TraceTable = {
    ids,
    last: -1,
    indexOf(body, start) {
      // Most spans follow another of their trace.
      if (table.last >= 0 && sameId(body, start, lastStart)) return table.last;
      const mask = slots.length - 1;
      let slot = slotOf(body, start, mask);
      for (let entry = slots[slot]; entry !== 0; entry = slots[slot]) {
        if (sameId(body, start, starts[entry - 1])) {
          lastStart = start;
          table.last = entry - 1;
          return table.last;
        }
        slot = (slot + 1) & mask;
      }
      const index = ids.length;
      ids.push(body.toString('hex', start, start + ID_BYTES));
      starts.push(start);
      slots[slot] = index + 1;
      if (ids.length * 2 > slots.length) grow(body);
      lastStart = start;
      table.last = index;
      return index;
    },
  };
  return table;
}

function sameId(body: Buffer, a: number, b: number): boolean {
  for (let i = 0; i < ID_BYTES; i++) if (body[a + i] !== body[b + i]) return false;
  return true;
}
