/**
 * What both stores' migrations share: a migration's shape, the check that versions run 1, 2, 3…
 * in order, and what `migrate` decides once it has read the stored schema version (refuse a newer
 * one, name a migration that fails). Each store runs its migrations in its own transaction, under
 * its own lock.
 */
import { LedgerSchemaError } from '../errors.ts';

export interface Migration {
  version: number;
  description: string;
  sql: string;
}

/** Throws when versions are not 1, 2, 3, ... in order (a programming error, caught by a test). */
export function checkMigrationList(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new LedgerSchemaError(
        `ledger schema: migration #${index + 1} has version ` +
          `${migration.version} (versions must be 1, 2, 3, ... in order)`,
      );
    }
  });
}

/**
 * The migrations a ledger at schema version `current` has not had. A version newer than the last
 * one known here was written by a newer Evalon: opening it fails rather than guessing. `storage`
 * is what the hint tells the user to point the ledger at instead (`file`, `database`).
 */
export function migrationsToApply(
  migrations: readonly Migration[],
  current: number,
  where: string,
  storage: string,
): readonly Migration[] {
  const latest = migrations.length;
  if (current > latest) {
    throw new LedgerSchemaError(
      `ledger ${where}: schema version ${current} is newer than this Evalon supports (${latest}) ` +
        `(upgrade Evalon, or point the ledger at another ${storage})`,
    );
  }
  return migrations.slice(current);
}

/** A migration that failed, named, with the database's error as `cause`. */
export function migrationError(where: string, migration: Migration, error: unknown): LedgerSchemaError {
  return new LedgerSchemaError(
    `ledger ${where}: migration ${migration.version} (${migration.description}) failed: ${(error as Error).message}`,
    { cause: error },
  );
}
