/**
 * The `evalon` command line. Each command lives in its own module; this file only dispatches,
 * and turns errors into one clear line (exit 2 for bad input) unless `--verbose` asks for stacks.
 */
import { readFileSync } from 'node:fs';
import { configFilesFrom, UsageError } from './args.ts';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const consoleIo: CliIo = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

const HELP = `evalon — OpenTelemetry-native evaluation collector for LLM agents

Usage: evalon <command> [options]

Commands:
  collector [--config FILE]...        run the collector (default config: otel-config.yaml)
  validate [--config FILE]...         check a configuration; every problem is listed with its YAML path
  ledger list [--agent ID] [--conversation ID] [--since 24h] [--limit N] [--json] [--api URL]
                                      list recorded interactions, newest first
  ledger show <interactionId> [--json] [--api URL]
                                      show one interaction record
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

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

// Run when executed directly (`node collector/cli/main.ts ...`), not when imported.
if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
