/**
 * Every command and subcommand of `evalon` answers `--help` and `-h` with exit 0: usage, what it
 * does, its options with their defaults, an example. The commands are walked from the list
 * `main.ts` dispatches from, so a command added there is checked here too.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type CliCommand, formatHelp, runCommand } from '../../../collector/cli/command.ts';
import { COMMANDS } from '../../../collector/cli/commands.ts';
import { main } from '../../../collector/cli/main.ts';

const MAIN = new URL('../../../collector/cli/main.ts', import.meta.url).pathname;
const BIN = new URL('../../../bin/evalon.js', import.meta.url).pathname;

/** Every command path (`['ledger', 'list']`) with its command, depth first. */
async function everyCommand(): Promise<Array<{ path: string[]; command: CliCommand }>> {
  const found: Array<{ path: string[]; command: CliCommand }> = [];
  const walk = (path: string[], command: CliCommand) => {
    found.push({ path, command });
    for (const [name, subcommand] of Object.entries(command.subcommands ?? {})) walk([...path, name], subcommand);
  };
  for (const entry of COMMANDS) walk([entry.name], await entry.load());
  return found;
}

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('evalon <command> --help', () => {
  it('walks every command and subcommand: --help and -h print its usage, options and an example, exit 0', async () => {
    const commands = await everyCommand();
    const paths = commands.map(({ path }) => path.join(' '));
    // The commands of today are all there (the list may grow, never lose one).
    expect(paths).toEqual(
      expect.arrayContaining([
        'collector',
        'validate',
        'explain',
        'ledger',
        'ledger list',
        'ledger show',
        'ledger evaluations',
        'backfill',
        'simulate',
        'demo',
      ]),
    );
    for (const { path, command } of commands) {
      const name = `evalon ${path.join(' ')}`;
      for (const flag of ['--help', '-h']) {
        const result = await run([...path, flag]);
        expect({ name, flag, code: result.code, err: result.err }).toEqual({ name, flag, code: 0, err: '' });
        expect(result.out.startsWith(`Usage: ${name}`), `${name} ${flag}: ${result.out.split('\n')[0]}`).toBe(true);
        expect(result.out).toBe(formatHelp(path, command));
        expect(result.out).toContain('\nOptions:\n');
        expect(result.out).toMatch(/\nExamples?:\n {2}evalon /);
        expect(result.out).toContain('-h, --help');
      }
      expect(command.help.description.trim(), name).not.toBe('');
      for (const example of command.help.examples) expect(example.startsWith(name), example).toBe(true);
    }
  });

  it('answers --help after other arguments too, but not after --', async () => {
    const after = await run(['validate', '--config', 'nowhere.yaml', '--help']);
    expect(after.code).toBe(0);
    expect(after.out).toMatch(/^Usage: evalon validate /);
    const command: CliCommand = {
      help: { usage: '[ARG]...', description: 'Echoes.', options: [], examples: ['evalon echo -- --help'] },
      run: async (args, io) => {
        io.out(args.join(' '));
        return 3;
      },
    };
    const out: string[] = [];
    const io = { out: (line: string) => out.push(line), err: () => {} };
    expect(await runCommand(command, ['echo'], ['--', '--help'], io, { verbose: false })).toBe(3);
    expect(out).toEqual(['-- --help']);
  });

  it('lists every command of the dispatch list in evalon --help, exit 0; no command at all is exit 2', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const { name, summary } of COMMANDS) expect(help.out).toContain(`  ${name.padEnd(9)}  ${summary}`);
    expect((await run(['-h'])).code).toBe(0);
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.out).toBe(help.out);
  });

  it('names an unknown command with the closest one, exit 2', async () => {
    expect(await run(['valdate'])).toEqual({
      code: 2,
      out: '',
      err: 'evalon: unknown command "valdate" (did you mean "validate"? see evalon --help)',
    });
  });

  it('answers --help through the real entry point, as a child process', async () => {
    const exec = promisify(execFile);
    const cases = [
      [MAIN, 'collector', '--help'],
      [MAIN, 'validate', '--help'],
      [MAIN, 'demo', '-h'],
      [MAIN, 'ledger', 'list', '--help'],
      [BIN, 'simulate', '--help'],
    ];
    const results = await Promise.all(cases.map((argv) => exec(process.execPath, argv, { timeout: 30_000 })));
    results.forEach(({ stdout, stderr }, index) => {
      const [, ...path] = cases[index]!;
      expect(stderr).toBe('');
      expect(stdout).toMatch(new RegExp(`^Usage: evalon ${path.slice(0, -1).join(' ')} `));
    });
  }, 60_000);
});
