/**
 * Child process of the PostgreSQL crash test: appends batches of spans to a ledger database in a
 * loop and prints `acked <batch>` once `appendSpans` has resolved, and `released <batch>` once a
 * batch's traces have been released. The test kills it with SIGKILL at some point and checks.
 * Several appends are in flight at once (as concurrent OTLP requests are), so the kill also
 * lands between merged writes.
 *
 *   node test/collector/ledger/postgres/postgres-crash-writer.ts <ledger URL> <first batch number>
 */
import { createPostgresStore } from '../../../../collector/ledger/postgres/postgres-store.ts';
import { makeBatch, seededRandom } from '../../../helpers/span-fixtures.ts';

const IN_FLIGHT = 4;
/** Batch b's traces are released (even b only) after batch b + RELEASE_AFTER is acknowledged. */
const RELEASE_AFTER = 20; // the test reads the same figure
const [url, firstArg] = process.argv.slice(2);
const store = await createPostgresStore({ url });
const traceIds = new Map<number, string[]>();
const acked = new Set<number>();
let next = Number(firstArg);

async function worker(): Promise<void> {
  for (;;) {
    const batch = next++;
    const spans = makeBatch(seededRandom(batch), 3, 20, { 'crash.batch': batch });
    traceIds.set(batch, [...new Set(spans.map((span) => span.traceId))]);
    await store.appendSpans(spans);
    acked.add(batch);
    process.stdout.write(`acked ${batch}\n`);
    const old = batch - RELEASE_AFTER;
    if (old % 2 === 0 && acked.has(old)) {
      await store.releaseTraces(traceIds.get(old)!);
      process.stdout.write(`released ${old}\n`);
    }
    traceIds.delete(old);
    acked.delete(old);
  }
}

await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
