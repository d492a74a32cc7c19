/**
 * Child process of the prune crash tests: opens a ledger (an SQLite file or a PostgreSQL URL) and
 * runs the retention pass on it, printing `pruned <units>` after every batch the store committed.
 * The test kills it with SIGKILL half way and checks the ledger.
 *
 *   node test/collector/ledger/helpers/prune-crash-child.ts <sqlite|postgres> <path or URL> <now ms>
 */
import { createPostgresStore } from '../../../../collector/ledger/postgres/postgres-store.ts';
import { createSqliteStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { runPrunePass } from '../../../../collector/retention/prune-pass.ts';
import { CRASH_POLICY } from './prune-crash.ts';

const [kind, target, now] = process.argv.slice(2);
const store = kind === 'sqlite' ? createSqliteStore({ path: target }) : await createPostgresStore({ url: target });
let units = 0;
await runPrunePass({
  store,
  policy: CRASH_POLICY,
  now: Number(now),
  // Small batches: many transactions for the kill to land between (and in).
  batchUnits: 20,
  onPruned: (tally) => {
    units += tally.interactions.count;
    process.stdout.write(`pruned ${units}\n`);
  },
});
process.stdout.write('done\n');
await store.close();
