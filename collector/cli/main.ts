/**
 * The `evalon` command line. Each command lives in its own module; this file only dispatches,
 * and turns errors into one clear line (exit 2 for bad input) unless `--verbose` asks for stacks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { configFilesFrom, UsageError } from './args.ts';
import { type CliIo, consoleIo } from './cli-io.ts';

export type { CliIo };

const HELP = `evalon — OpenTelemetry-native evaluation collector for LLM agents

Usage: evalon <command> [options]

Commands:
  collector [--config FILE]...        run the collector (default config: otel-config.yaml)
  validate [--config FILE]...         check a configuration; every problem is listed with its YAML path
  ledger list [--agent ID] [--conversation ID] [--since 24h] [--limit N] [--json] [--api URL]
                                      list recorded interactions, newest first
  ledger show <interactionId> [--json] [--api URL]
                                      show one interaction record
  ledger evaluations <interactionId> [--json] [--api URL]
                                      show the evaluations recorded for one interaction
  ledger conversations [--agent ID] [--open | --over] [--since 24h] [--json] [--api URL]
                                      list conversations, most recently active first
  ledger conversation <conversationId> [--agent ID] [--json] [--api URL]
                                      show one conversation turn by turn, with every revision's verdicts
  explain [--config FILE]... [--agent ID [--roles a,b]] [--json]
                                      which evaluator entry binds each agent, why, and its settings
  backfill --evaluator ID [--conversations] [--agent ID] [--since 24h] [--version V] [--config FILE]...
                                      evaluate stored interactions (or conversations that are over)
                                      again, once per evaluator version
  demo [--rounds N] [--keep-running] [--ephemeral]
                                      the whole loop offline: a collector, an instrumented agent on a
                                      scripted model, verdicts as they arrive (no API key needed)
  simulate <scenario.yaml>... [--trials N] [--concurrency N] [--seed S] [--out DIR]
           [--record DIR] [--replay DIR] [--json]
                                      rehearse agents in scripted conversations and judge them

Options:
  --config FILE   configuration file; repeat it to layer overrides (later files win key by key)
  --verbose       print stack traces of errors
  --help          this text;  --version  the version

Exit codes: 0 success, 1 failure (a scenario failed, the API is unreachable), 2 bad input.
Environment variables: see .env.example.`;

export async function main(argv: string[], io: CliIo = consoleIo): Promise<number> {
  const verbose = argv.includes('--verbose');
  const args = argv.filter((arg) => arg !== '--verbose');
  const [command, ...rest] = args;
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.out(HELP);
        return command === undefined ? 2 : 0;
      case '--version':
      case '-v':
        io.out(packageVersion());
        return 0;
      // Each command's module is loaded only when that command runs.
      case 'collector': {
        const { runCollectorCommand } = await import('./collector-command.ts');
        return await runCollectorCommand({ configFiles: configFilesFrom(rest, 'collector') }, io);
      }
      case 'validate': {
        const { runValidateCommand } = await import('./validate-command.ts');
        return await runValidateCommand({ configFiles: configFilesFrom(rest, 'validate') }, io);
      }
      case 'ledger': {
        const { runLedgerCommand } = await import('./ledger-command.ts');
        return await runLedgerCommand(rest, io);
      }
      case 'explain': {
        const { runExplainCommand } = await import('./explain-command.ts');
        return await runExplainCommand(rest, io);
      }
      case 'backfill': {
        const { runBackfillCommand } = await import('./backfill-command.ts');
        return await runBackfillCommand(rest, io);
      }
      case 'demo': {
        const { runDemoCommand } = await import('../demo/demo-command.ts');
        return await runDemoCommand(rest, io);
      }
      case 'simulate': {
        const { runSimulateCommand } = await import('./simulate-command.ts');
        return await runSimulateCommand(verbose ? [...rest, '--verbose'] : rest, io);
      }
      default:
        io.err(`evalon: unknown command "${command}" (see evalon --help)`);
        return 2;
    }
  } catch (error) {
    if (verbose && error instanceof Error) io.err(error.stack ?? error.message);
    else io.err(error instanceof Error ? error.message : String(error));
    return error instanceof UsageError || isConfigError(error) ? 2 : 1;
  }
}

function isConfigError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConfigError';
}

/**
 * The package's version: two folders up from collector/cli/ in a checkout, three from
 * dist/collector/cli/ when installed.
 */
function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    const file = new URL(relative, import.meta.url);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return 'unknown';
}

// Run when executed directly (`node collector/cli/main.ts ...`), not when imported.
if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
