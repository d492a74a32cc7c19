/**
 * Child process of the replica tests: opens a PostgreSQL store as `<replica id>`, appends one span
 * of `<trace id>` (which claims the id), prints `ready`, and waits to be killed.
 *
 *   node test/collector/ledger/postgres/postgres-replica-holder.ts <ledger URL> <replica id> <trace id>
 */
import { createPostgresStore } from '../../../../collector/ledger/postgres/postgres-store.ts';
import { plainSpan } from '../../../helpers/ledger-fixtures.ts';

const [url, replicaId, traceId] = process.argv.slice(2);
const store = await createPostgresStore({ url, replicaId, heartbeatMs: 200 });
await store.appendSpans([plainSpan(traceId, 7)]);
process.stdout.write('ready\n');
setInterval(() => {}, 60_000);
