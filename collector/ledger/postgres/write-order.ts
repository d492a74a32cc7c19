/**
 * Interaction writes that overlap yet take effect in call order. A write begins (takes a
 * connection, opens its transaction, inserts) once the previous write's INSERT has finished, so
 * `seq` follows call order and a write waiting to insert holds no connection. Its conversation
 * turns and its COMMIT wait until the previous write has ended, so turns apply to the state the
 * previous write left and writes commit in call order (a reader paging by `seq` never sees a later
 * write's rows before an earlier one's). The next write's INSERT thus runs while the previous write
 * records its turns and commits: the server works on both.
 *
 * No wait can close a cycle: a write waits only on writes called before it. Inside the server, a
 * write whose INSERT meets a row the previous write has inserted and not yet committed (the same
 * interaction id, a replay) waits for that COMMIT, which waits on nothing after it.
 */
export interface OrderedWrite {
  /** Settles once the previous write's INSERT has finished (or that write has ended). */
  mayInsert: Promise<void>;
  /** Says this write's INSERT has finished. Safe twice. */
  inserted(): void;
  /** Settles once the previous write has committed or rolled back. */
  mayCommit: Promise<void>;
  /** Says this write has committed or rolled back (also lets the next write insert). Safe twice. */
  ended(): void;
}

export interface WriteOrder {
  /** The next write's place, taken when the write is called (before anything it awaits). */
  next(): OrderedWrite;
}

export function createWriteOrder(): WriteOrder {
  let lastInserted: Promise<void> = Promise.resolve();
  let lastEnded: Promise<void> = Promise.resolve();
  return {
    next() {
      const mayInsert = lastInserted;
      const mayCommit = lastEnded;
      let inserted!: () => void;
      let ended!: () => void;
      lastInserted = new Promise<void>((resolve) => (inserted = resolve));
      lastEnded = new Promise<void>((resolve) => (ended = resolve));
      return {
        mayInsert,
        inserted,
        mayCommit,
        ended() {
          inserted();
          ended();
        },
      };
    },
  };
}
