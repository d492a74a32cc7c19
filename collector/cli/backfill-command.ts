/**
 * `evalon backfill --evaluator ID [--conversations] [--agent ID] [--since 24h] [--version V]
 * [--config FILE]...`: evaluate stored interactions (or, with `--conversations`, the revisions of
 * conversations that are over) again, exactly once per evaluator version, with a progress bar.
 * It opens the configured ledger itself (with a running collector on it too: SQLite serialises
 * the writes, and the unique keys keep outcomes exactly once), loads the evaluator modules, and
 * runs the evaluations in this process with the configured concurrency.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.ts';
import { BUILT_IN_EVALUATORS } from '../evaluators/index.ts';
import { openLedgerStore } from '../ledger/open-store.ts';
import { createLogger } from '../logger.ts';
import { BackfillError, runBackfill, type BackfillProgress } from '../processor/evaluation/backfill.ts';
import { runConversationBackfill } from '../processor/evaluation/conversation-backfill.ts';
import { loadEvaluatorRegistry } from '../processor/evaluation/load-evaluator-modules.ts';
import { resolveSince } from '../api/interactions-query.ts';
import { CONFIG_OPTION, DEFAULT_CONFIG_FILE, UsageError } from './args.ts';
import type { CliIo } from './cli-io.ts';
import { type CliCommand, formatHelp } from './command.ts';
import { createProgressBar, type ProgressBar } from './progress-bar.ts';

export const backfillCommand: CliCommand = {
  help: {
    usage: '--evaluator ID [--conversations] [--agent ID] [--since 24h|ISO-8601] [--version V] [--config FILE]...',
    description:
      "Evaluates the stored interactions the evaluator entry's bindings trigger (ID is the entry's key, such as " +
      'llm-judge/strict; the live rules: enabled, trigger-on-failure, sampling, loop safety), oldest first, ' +
      "recording each outcome under the version (--version, else the entry's version, else the evaluator's own). " +
      'Interactions that already have an outcome for that version are skipped, so running it again is safe. ' +
      'With --conversations, evaluates instead the conversations that are over, each revision once (the ' +
      'bindings with trigger: conversation).',
    options: [
      {
        flag: '--evaluator ID',
        description: 'the evaluator entry to run: its key, such as llm-judge/strict (required)',
      },
      {
        flag: '--conversations',
        description: 'evaluate the revisions of conversations that are over, not interactions',
      },
      { flag: '--agent ID', description: "only this agent's interactions (or conversations)" },
      {
        flag: '--since WHEN',
        description:
          'only interactions (or conversation revisions) that ended since then: a duration back from now ' +
          '(30m, 24h, 7d) or an ISO-8601 time',
      },
      {
        flag: '--version V',
        description: 'the version to record outcomes under',
        default: "the entry's version, else the evaluator's own",
      },
      CONFIG_OPTION,
    ],
    examples: [
      'evalon backfill --evaluator reply-length --agent support-agent --since 7d',
      'evalon backfill --evaluator llm-judge/strict --since 24h',
      'evalon backfill --evaluator llm-judge/conversation --conversations --since 7d',
    ],
  },
  run: (args, io) => runBackfillCommand(args, io),
};

function parseBackfillArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        config: { type: 'string', short: 'c', multiple: true },
        evaluator: { type: 'string' },
        agent: { type: 'string' },
        since: { type: 'string' },
        version: { type: 'string' },
        conversations: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(`evalon backfill: ${(error as Error).message.split('\n')[0]} (see evalon backfill --help)`);
  }
}

export async function runBackfillCommand(
  args: string[],
  io: CliIo,
  options: { progress?: ProgressBar } = {},
): Promise<number> {
  const values = parseBackfillArgs(args);
  if (values.help) {
    io.out(formatHelp(['backfill'], backfillCommand));
    return 0;
  }
  if (!values.evaluator)
    throw new UsageError('evalon backfill: --evaluator ID is required (see evalon backfill --help)');
  if (values.version !== undefined && values.version.trim() === '')
    throw new UsageError('evalon backfill: --version must not be empty');
  let since: string | undefined;
  if (values.since !== undefined) {
    since = resolveSince(values.since, Date.now());
    if (since === undefined)
      throw new UsageError(
        'evalon backfill: --since must be an ISO-8601 time or a ' +
          `duration such as 30m, 24h or 7d (got "${values.since}")`,
      );
  }
  const { config, warnings, locate } = loadConfig(values.config?.length ? values.config : [DEFAULT_CONFIG_FILE]);
  for (const warning of warnings) io.err(`warning: ${warning}`);
  const evaluation = config.processors.evaluation;
  const registry = await loadEvaluatorRegistry({
    modules: evaluation.modules,
    builtIns: BUILT_IN_EVALUATORS,
    configuredIds: Object.keys(evaluation.evaluators),
    evaluators: evaluation.evaluators,
    locate,
  });

  const store = await openLedgerStore(evaluation.ledger);
  const bar = options.progress ?? createProgressBar();
  const subjects = values.conversations ? 'conversation revisions' : 'interactions';
  const detail = (p: BackfillProgress) =>
    `${subjects} read · ${p.queued} queued, ${p.runtime.recorded} recorded, ${p.runtime.failed} failed`;
  let result: BackfillProgress;
  try {
    result = await (values.conversations ? runConversationBackfill : runBackfill)({
      store,
      config: evaluation,
      registry,
      evaluatorId: values.evaluator,
      ...(values.agent !== undefined ? { agentId: values.agent } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(values.version !== undefined ? { version: values.version } : {}),
      logger: createLogger({ quiet: true }),
      onProgress: (p) => bar.update(p.scanned, p.total, detail(p)),
    });
  } catch (error) {
    if (error instanceof BackfillError) throw new UsageError(`evalon backfill: ${error.message}`);
    throw error;
  } finally {
    await store.close();
  }
  bar.finish(result.scanned, result.total, detail(result));
  const version =
    values.version ?? evaluation.evaluators[values.evaluator]?.version ?? registry.get(values.evaluator)?.version;
  const r = result.runtime;
  io.out(
    `backfill ${values.evaluator} (version ${version}): ${result.scanned} ${subjects} read; ${r.recorded} evaluated ` +
      `(${r.passed} passed, ${r.verdicts - r.passed} failed, ${r.inconclusive} inconclusive, ${r.failed} errors); ` +
      `${result.alreadyRecorded} already had an outcome for this ` +
      `version; ${result.notTriggered} not triggered by the bindings`,
  );
  return 0;
}
