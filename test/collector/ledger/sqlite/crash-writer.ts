/**
 * Child process of the crash test: appends batches of spans to a ledger file in a loop and prints
 * `acked <batch>` once `appendSpans` has resolved, and `released <batch>` once a batch's traces
 * have been released. The test kills it with SIGKILL at some point and checks the file.
 *
 *   node test/collector/ledger/sqlite/crash-writer.ts <ledger path> <first batch number>
 */
import { createSqliteStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { makeBatch, seededRandom } from '../../../helpers/span-fixtures.ts';

const [path, firstArg] = process.argv.slice(2);
const store = createSqliteStore({ path });
const traceIds = new Map<number, string[]>();

for (let batch = Number(firstArg); ; batch += 1) {
  const spans = makeBatch(seededRandom(batch), 3, 20, { 'crash.batch': batch });
  traceIds.set(batch, [...new Set(spans.map((span) => span.traceId))]);
  await store.appendSpans(spans);
  process.stdout.write(`acked ${batch}\n`);
  const old = batch - 5;
  if (old % 2 === 0 && traceIds.has(old)) {
    await store.releaseTraces(traceIds.get(old)!);
    process.stdout.write(`released ${old}\n`);
  }
  traceIds.delete(old);
}
