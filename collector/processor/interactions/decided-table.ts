/**
 * Where the decided cache's entries are, by trace id (decided-cache.ts): an open-addressing hash
 * table in typed arrays, keyed by a trace id's 128 bits as four 32-bit integers, so that ~100,000
 * remembered traces cost no object, string or map entry on the heap. Written here because a
 * `Map` needs a string or an object as the key of a 128-bit value; linear probing, deleted slots
 * marked and dropped when the table is rebuilt: past half full (to at most half of the new one's
 * slots) and below a sixteenth.
 */
import { freeBuffer } from '../../model/free-buffer.ts';

/** A trace id as integers: 32 hex characters, 8 to an integer. */
export const ID_INTS = 4;
const HEX_CHARS = 32;

const EMPTY = -1;
const DELETED = -2;
const MIN_SLOTS = 1024;

/**
 * Reads a trace id of 32 lowercase hex characters into `out` (four integers) and answers true;
 * false for any other string (`out` then holds whatever was read before it stopped).
 */
export function hexIdInto(traceId: string, out: Int32Array): boolean {
  if (traceId.length !== HEX_CHARS) return false;
  for (let i = 0; i < ID_INTS; i++) {
    let value = 0;
    for (let j = i * 8; j < i * 8 + 8; j++) {
      const c = traceId.charCodeAt(j);
      const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
      if (digit < 0) return false;
      value = (value << 4) | digit;
    }
    out[i] = value;
  }
  return true;
}

export interface DecidedTable {
  /** The value kept for `id`, or -1. */
  get(id: Int32Array): number;
  /** Keeps `value` (0 or more) for `id`, replacing what was kept. */
  set(id: Int32Array, value: number): void;
  delete(id: Int32Array): void;
  readonly size: number;
}

export function createDecidedTable(): DecidedTable {
  let slots = MIN_SLOTS;
  let keys = new Int32Array(slots * ID_INTS);
  let values = new Float64Array(slots).fill(EMPTY);
  let size = 0;
  let deleted = 0;

  function hash(id: Int32Array): number {
    let h = Math.imul(id[0] ^ Math.imul(id[1], 0x9e3779b1), 0x85ebca6b);
    h = Math.imul(h ^ id[2] ^ (h >>> 13), 0xc2b2ae35);
    h = Math.imul(h ^ id[3] ^ (h >>> 16), 0x27d4eb2d);
    return (h ^ (h >>> 15)) & (slots - 1);
  }

  const matches = (slot: number, id: Int32Array) => {
    const at = slot * ID_INTS;
    return keys[at] === id[0] && keys[at + 1] === id[1] && keys[at + 2] === id[2] && keys[at + 3] === id[3];
  };

  /** The slot holding `id`, or -1. */
  function slotOf(id: Int32Array): number {
    for (let slot = hash(id); ; slot = (slot + 1) & (slots - 1)) {
      const value = values[slot];
      if (value === EMPTY) return -1;
      if (value !== DELETED && matches(slot, id)) return slot;
    }
  }

  function rebuild(count: number): void {
    const [oldKeys, oldValues, oldSlots] = [keys, values, slots];
    slots = MIN_SLOTS;
    while (slots < count * 2) slots *= 2;
    keys = new Int32Array(slots * ID_INTS);
    values = new Float64Array(slots).fill(EMPTY);
    deleted = 0;
    for (let old = 0; old < oldSlots; old++) {
      if (oldValues[old] < 0) continue;
      let slot = hash(oldKeys.subarray(old * ID_INTS, old * ID_INTS + ID_INTS));
      while (values[slot] !== EMPTY) slot = (slot + 1) & (slots - 1);
      keys.set(oldKeys.subarray(old * ID_INTS, old * ID_INTS + ID_INTS), slot * ID_INTS);
      values[slot] = oldValues[old];
    }
    freeBuffer(oldKeys.buffer);
    freeBuffer(oldValues.buffer);
  }

  return {
    get size() {
      return size;
    },

    get(id) {
      const slot = slotOf(id);
      return slot < 0 ? -1 : values[slot];
    },

    set(id, value) {
      const found = slotOf(id);
      if (found >= 0) {
        values[found] = value;
        return;
      }
      if ((size + deleted + 1) * 2 > slots) rebuild(size + 1);
      let slot = hash(id);
      while (values[slot] >= 0) slot = (slot + 1) & (slots - 1);
      if (values[slot] === DELETED) deleted--;
      keys.set(id, slot * ID_INTS);
      values[slot] = value;
      size++;
    },

    delete(id) {
      const slot = slotOf(id);
      if (slot < 0) return;
      values[slot] = DELETED;
      size--;
      deleted++;
      if (slots > MIN_SLOTS && size * 16 < slots) rebuild(size);
    },
  };
}
