/**
 * A command of the `evalon` CLI: its help (usage, what it does, every option with its default, an
 * example) and how it runs. `runCommand` routes a subcommand (`ledger list`) and answers `--help`
 * and `-h` for every command from its `help`, so a command never parses them itself and none can
 * forget them: a command is not dispatched without a `help`.
 */
import type { CliIo } from './cli-io.ts';

export interface OptionHelp {
  /** The long form with its value, as typed: `--config FILE`, `--json`. */
  flag: string;
  /** The short form, when there is one: `-c`. */
  short?: string;
  description: string;
  /** Printed as `(default: …)`; leave it out for an option that is off or unset by default. */
  default?: string;
}

export interface CommandHelp {
  /** The arguments after `evalon <command>`: `[--config FILE]... [--json]`. One entry per form. */
  usage: string | readonly string[];
  /** What the command does, in one or two sentences. */
  description: string;
  /** Every option the command takes (`--help` and `--verbose` are added). */
  options: readonly OptionHelp[];
  /** Command lines as typed, starting with `evalon`. */
  examples: readonly [string, ...string[]];
  /** Anything more the user needs: exit codes, environment variables. */
  notes?: string;
}

export interface CommandContext {
  /** `--verbose` was given (main removes it from the arguments). */
  verbose: boolean;
}

export interface CliCommand {
  help: CommandHelp;
  /** Runs with the arguments after the command's name; `--help` never reaches it. */
  run(args: string[], io: CliIo, context: CommandContext): Promise<number>;
  /** Subcommands by name (`list` of `evalon ledger list`); the first argument names one. */
  subcommands?: Readonly<Record<string, CliCommand>>;
}

/** Options every command takes. */
const COMMON_OPTIONS: readonly OptionHelp[] = [
  { flag: '--verbose', description: 'print stack traces of errors' },
  { flag: '--help', short: '-h', description: 'show this help' },
];

/** Runs `command` (reached by `path`, e.g. `['ledger', 'list']`) or one of its subcommands. */
export async function runCommand(
  command: CliCommand,
  path: readonly string[],
  args: string[],
  io: CliIo,
  context: CommandContext,
): Promise<number> {
  const [first, ...rest] = args;
  const subcommands = command.subcommands ?? {};
  if (first !== undefined && Object.hasOwn(subcommands, first))
    return runCommand(subcommands[first]!, [...path, first], rest, io, context);
  if (wantsHelp(args)) {
    io.out(formatHelp(path, command));
    return 0;
  }
  return command.run(args, io, context);
}

/** `--help` or `-h` among the options (not after `--`, where arguments are taken as they are). */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  return options.includes('--help') || options.includes('-h');
}

/** The help text of `command`: usage, description, subcommands, options, examples, notes. */
export function formatHelp(path: readonly string[], command: CliCommand): string {
  const { help } = command;
  const name = ['evalon', ...path].join(' ');
  const forms = typeof help.usage === 'string' ? [help.usage] : help.usage;
  const lines = forms.map((form, index) => `${index === 0 ? 'Usage:' : '      '} ${name} ${form}`.trimEnd());
  lines.push('', ...wrap(help.description, HELP_WIDTH));
  const subcommands = Object.entries(command.subcommands ?? {});
  if (subcommands.length > 0) {
    lines.push('', 'Commands:');
    for (const [subcommand, { help: sub }] of subcommands) {
      const usage = typeof sub.usage === 'string' ? sub.usage : sub.usage[0];
      lines.push(`  ${name} ${subcommand} ${usage ?? ''}`.trimEnd());
    }
    lines.push(`Run ${name} <command> --help for what each does and its options.`);
  }
  lines.push('', 'Options:', ...optionLines([...help.options, ...COMMON_OPTIONS]));
  lines.push('', help.examples.length === 1 ? 'Example:' : 'Examples:', ...help.examples.map((line) => `  ${line}`));
  if (help.notes !== undefined) lines.push('', help.notes);
  return lines.join('\n');
}

/** Help lines are wrapped to this many columns. */
const HELP_WIDTH = 100;
/** Longest option column before the description goes on the next line. */
const MAX_FLAG_WIDTH = 28;

function optionLines(options: readonly OptionHelp[]): string[] {
  const flags = options.map((option) => (option.short ? `${option.short}, ${option.flag}` : `    ${option.flag}`));
  const width = Math.min(MAX_FLAG_WIDTH, Math.max(...flags.map((flag) => flag.length)));
  const indent = ' '.repeat(width + 4);
  return options.flatMap((option, index) => {
    const flag = flags[index]!;
    const text =
      option.default !== undefined ? `${option.description} (default: ${option.default})` : option.description;
    const [first = '', ...more] = wrap(text, HELP_WIDTH - indent.length);
    const head = flag.length > width ? [`  ${flag}`, indent + first] : [`  ${flag.padEnd(width)}  ${first}`];
    return [...head, ...more.map((line) => indent + line)];
  });
}

/** Words on lines of at most `width` columns (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((part) => part !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}
