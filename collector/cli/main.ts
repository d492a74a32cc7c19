/**
 * The `evalon` command line. Each command lives in its own module; this file only dispatches,
 * and turns errors into one clear line (exit 2 for bad input) unless `--verbose` asks for stacks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { closestKey } from '../../src/config/key-suggestions.ts';
import { UsageError } from './args.ts';
import { type CliIo, consoleIo } from './cli-io.ts';
import { runCommand } from './command.ts';
import { COMMANDS } from './commands.ts';

export type { CliIo };

/** `evalon --help`: every command of the list main dispatches from, with its one-line summary. */
export function topLevelHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    'evalon — OpenTelemetry-native evaluation collector for LLM agents',
    '',
    'Usage: evalon <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'Run evalon <command> --help for what a command does, its options and their defaults.',
    '',
    'Options:',
    '  --verbose      print stack traces of errors',
    '  -h, --help     this text',
    '  -v, --version  the version',
    '',
    'Exit codes: 0 success, 1 failure (a scenario failed, the API is unreachable), 2 bad input.',
    'Environment variables: see .env.example.',
  ].join('\n');
}

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
        io.out(topLevelHelp());
        return command === undefined ? 2 : 0;
      case '--version':
      case '-v':
        io.out(packageVersion());
        return 0;
    }
    const entry = COMMANDS.find((candidate) => candidate.name === command);
    if (!entry) {
      const meant = closestKey(
        command,
        COMMANDS.map((candidate) => candidate.name),
      );
      io.err(`evalon: unknown command "${command}" (${meant ? `did you mean "${meant}"? ` : ''}see evalon --help)`);
      return 2;
    }
    return await runCommand(await entry.load(), [entry.name], rest, io, { verbose });
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
