/**
 * Opens the ledger the configuration names (`processors::evaluation::ledger`): the embedded SQLite
 * file, or a PostgreSQL database. The one place that chooses a store; the service and the CLI
 * commands that need the ledger itself call it.
 */
import type { LedgerConfig } from '../config/index.ts';
import { createPostgresStore } from './postgres/postgres-store.ts';
import { createSqliteStore } from './sqlite/sqlite-store.ts';
import type { LedgerStore } from './store.ts';
import type { Logger } from '../logger.ts';

export interface OpenLedgerOptions {
  /** SQLite only: `inline` writes on the caller's thread (short-lived commands). */
  sqliteWriter?: 'thread' | 'inline';
  /** PostgreSQL only: where replica-id trouble is reported (default stderr). */
  logger?: Logger;
}

export async function openLedgerStore(config: LedgerConfig, options: OpenLedgerOptions = {}): Promise<LedgerStore> {
  if (config.kind === 'postgres') {
    return createPostgresStore({
      url: config.url,
      replicaId: config.replicaId,
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }
  return createSqliteStore({ path: config.path, ...(options.sqliteWriter ? { writer: options.sqliteWriter } : {}) });
}
