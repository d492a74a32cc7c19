/**
 * `evalon ledger prune [--dry-run] [--json] [--config FILE]...`: applies the configured retention
 * policy (`processors::evaluation::ledger::retention`) to the ledger now, or with `--dry-run` counts
 * what it would remove, by kind, in rows and stored bytes. It opens the ledger from the
 * configuration itself, as `evalon backfill` does.
 *
 * SQLite: a dry run reads beside a running collector; a prune is refused while one holds the
 * ledger file (it prunes in the background by the same policy), and takes the file's lock
 * otherwise. A prune of a file created before incremental vacuum ends with the one-time
 * compaction that turns it on. PostgreSQL: it runs beside the collector replicas, taking its turn
 * with their pruners (the pruning lock). Exit codes: 0 done, 1 refused or failed, 2 bad input.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.ts';
import type { LedgerConfig } from '../config/index.ts';
import { LedgerInUseError, LedgerStoreError } from '../ledger/errors.ts';
import { PRUNED_KINDS, type PruneTally } from '../ledger/ledger-retention.ts';
import { openLedgerStore } from '../ledger/open-store.ts';
import type { LedgerStore } from '../ledger/store.ts';
import { days, prunes } from '../retention/config.ts';
import { type PassReport, runPrunePass } from '../retention/prune-pass.ts';
import { CommandFailure, usage } from './api-client.ts';
import { DEFAULT_CONFIG_FILE } from './args.ts';
import type { CliIo } from './cli-io.ts';

const where = 'evalon ledger prune';

export async function runPruneCommand(args: string[], io: CliIo): Promise<void> {
  const values = parsePruneArgs(args);
  const files = values.config?.length ? values.config : [DEFAULT_CONFIG_FILE];
  const { config, warnings } = loadConfig(files);
  for (const warning of warnings) io.err(`warning: ${warning}`);
  const ledger = config.processors.evaluation.ledger;
  const policy = ledger.retention;
  if (!prunes(policy))
    throw usage(
      `${where}: processors::evaluation::ledger::retention sets neither max_age nor max_size in ` +
        `${files.join(', ')} (nothing to prune; see docs/retention.md)`,
    );
  const dryRun = values['dry-run'] === true;
  const store = await openLedgerStore(ledger, { sqliteWriter: 'inline' });
  try {
    const release = dryRun ? async () => {} : await takeLedger(store, ledger);
    try {
      // A maintenance run gives every free page back: nothing is being ingested meanwhile.
      const report = await runPrunePass({ store, policy, now: Date.now(), dryRun, keepFreeBytes: 0, reviews: store });
      const compacted = !dryRun && report.incrementalVacuum === false ? await compact(store, io) : undefined;
      if (values.json) io.out(JSON.stringify({ dryRun, ...report, ...(compacted ? { compacted } : {}) }, null, 2));
      else print(io, { ledger, dryRun, report, compacted });
    } finally {
      await release();
    }
  } finally {
    await store.close();
  }
}

function parsePruneArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        config: { type: 'string', short: 'c', multiple: true },
        'dry-run': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw usage(`${where}: ${(error as Error).message.split('\n')[0]} (see evalon ledger prune --help)`);
  }
}

/** The ledger to this command alone while it prunes: the SQLite file's lock, or the pruning turn. */
async function takeLedger(store: LedgerStore, ledger: LedgerConfig): Promise<() => Promise<void>> {
  if (ledger.kind === 'sqlite') {
    try {
      await store.claimReplica?.();
    } catch (error) {
      if (!(error instanceof LedgerInUseError)) throw error;
      throw new CommandFailure(
        `${where}: a collector is running on ${ledger.path} (${error.holder}); it prunes by this policy in the ` +
          'background. Stop it to prune from here, or run with --dry-run beside it',
        1,
      );
    }
    return async () => {}; // the lock goes with store.close()
  }
  const lock = await store.lockPruning();
  if (!lock)
    throw new CommandFailure(
      `${where}: a collector replica is pruning this ledger right now (its passes are short: run again)`,
      1,
    );
  return () => lock.release();
}

/**
 * The one-time rewrite of an SQLite file created without incremental vacuum. What was pruned
 * stays pruned if it cannot run (its space is reused by new data meanwhile): a warning says why.
 */
async function compact(
  store: LedgerStore,
  io: CliIo,
): Promise<{ beforeBytes: number; afterBytes: number } | undefined> {
  if (!store.compactLedger) return undefined;
  io.err(`${where}: compacting the ledger file once, to turn on incremental vacuum (this takes a while)`);
  try {
    return await store.compactLedger();
  } catch (error) {
    if (!(error instanceof LedgerStoreError)) throw error;
    io.err(`warning: ${error.message}; pruned space is reused by new data meanwhile`);
    return undefined;
  }
}

function print(
  io: CliIo,
  run: {
    ledger: LedgerConfig;
    dryRun: boolean;
    report: PassReport;
    compacted?: { beforeBytes: number; afterBytes: number } | undefined;
  },
): void {
  const { ledger, dryRun, report } = run;
  const policy = ledger.retention!;
  const rules = [
    policy.maxAgeMs !== undefined && `max_age ${days(policy.maxAgeMs)}`,
    policy.maxSizeBytes !== undefined && `max_size ${size(policy.maxSizeBytes)}`,
    policy.keepEvaluationsMs !== undefined && `keep_evaluations ${days(policy.keepEvaluationsMs)}`,
  ].filter(Boolean);
  const name = ledger.kind === 'sqlite' ? ledger.path : 'PostgreSQL';
  io.out(`ledger ${name}, retention ${rules.join(', ')}`);
  io.out(dryRun ? 'would prune now:' : 'pruned:');
  io.out(table(report.tally));
  if (report.keptInUse + report.keptForReview > 0)
    io.out(
      `kept: ${report.keptInUse} in use (pending traces, queued evaluations, open conversations), ` +
        `${report.keptForReview} under an open review`,
    );
  if (report.sizeBefore && report.sizeAfter)
    io.out(
      `size: ${size(report.sizeBefore.usedBytes)} used ${dryRun ? 'now, about' : 'before,'} ` +
        `${size(report.sizeAfter.usedBytes)} after` +
        (report.overSize ? ' (still above max_size: what is left is in use)' : ''),
    );
  if (report.evaluationsForSize > 0)
    io.out(`${report.evaluationsForSize} kept evaluations ${dryRun ? 'would go' : 'went'} to stay under max_size`);
  if (!dryRun && report.reclaimedBytes > 0) io.out(`${size(report.reclaimedBytes)} given back to the file system`);
  if (run.compacted)
    io.out(
      `compacted the ledger file once, turning on incremental vacuum: ${size(run.compacted.beforeBytes)} → ` +
        `${size(run.compacted.afterBytes)}`,
    );
}

function table(tally: PruneTally): string {
  return PRUNED_KINDS.map((kind) => {
    const { count, bytes } = tally[kind];
    return `  ${kind.padEnd(14)} ${count.toLocaleString('en').padStart(12)}  ${bytes > 0 ? size(bytes) : ''}`.trimEnd();
  }).join('\n');
}

function size(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
