/**
 * Errors of the ledger, whatever the store: callers catch these, never a store's own. Messages
 * read `<where>: <what> (<hint>)`; the original error, if any, is the `cause`.
 */

/** The stored schema cannot be used by this build (newer than it knows, or a broken migration). */
export class LedgerSchemaError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LedgerSchemaError';
  }
}

/** A query the store cannot run (a bad limit or since); `field` names the query field at fault. */
export class LedgerQueryError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = 'LedgerQueryError';
    this.field = field;
  }
}

/** A store operation failed (closed store, bad input, a storage error as `cause`). */
export class LedgerStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LedgerStoreError';
  }
}

/**
 * Another live process holds the ledger (an SQLite file's collector lock): `holder` says which
 * (`pid 1234 on host-a, since …`), for commands that word their own refusal.
 */
export class LedgerInUseError extends LedgerStoreError {
  readonly holder: string;
  constructor(message: string, holder: string) {
    super(message);
    this.name = 'LedgerInUseError';
    this.holder = holder;
  }
}
