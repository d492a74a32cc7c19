/**
 * `evalon validate [--config FILE]... [--json]`: load the configuration as the collector would,
 * then load its evaluator modules and check every binding's evaluator properties as startup does
 * (so a module that fails to import, an id defined twice, an evaluator entry nothing defines or a
 * bad property is reported here, not at the first deployment), and report.
 * Exit 0 with `OK: …` (warnings on stderr first); exit 2 with every problem, one per line. With
 * `--json`, the same result as one JSON document on stdout, and nothing on stderr.
 */
import { parseArgs } from 'node:util';
import { splitHint } from '../../src/config/config-problem.ts';
import { BUILT_IN_EVALUATORS } from '../evaluators/index.ts';
import { ConfigError, type ConfigProblem, formatConfigProblem, loadConfig } from '../config/index.ts';
import { loadEvaluatorRegistry } from '../processor/evaluation/load-evaluator-modules.ts';
import { CONFIG_OPTION, DEFAULT_CONFIG_FILE, UsageError } from './args.ts';
import type { CliIo } from './cli-io.ts';
import type { CliCommand } from './command.ts';

export const validateCommand: CliCommand = {
  help: {
    usage: '[--config FILE]... [--json]',
    description:
      "Checks a configuration as the collector's startup does: the files, the evaluator modules and every " +
      "binding's evaluator properties. Lists every problem with its file, line and YAML path.",
    options: [
      CONFIG_OPTION,
      {
        flag: '--json',
        description:
          'print { ok, problems: [{ file, line, column, path, message, severity, hint? }] } on stdout instead',
      },
    ],
    examples: ['evalon validate --config otel-config.yaml --config prod.yaml', 'evalon validate --json'],
    notes: 'Exit codes: 0 the configuration is valid (it may have warnings), 2 it has problems.',
  },
  run: (args, io) => runValidateCommand(parseValidateArgs(args), io),
};

/** One problem or warning of `--json`; unknown places are null. */
export interface ValidationProblemJson {
  file: string | null;
  line: number | null;
  column: number | null;
  path: string;
  message: string;
  severity: 'error' | 'warning';
  /** The parenthesised remark that ends a message (a suggestion, the value found), when there is one. */
  hint?: string;
}

export interface ValidationJson {
  ok: boolean;
  /** Warnings first, then errors, each in file order. */
  problems: ValidationProblemJson[];
}

export async function runValidateCommand(args: { configFiles: string[]; json?: boolean }, io: CliIo): Promise<number> {
  const result = await validate(args.configFiles);
  if (args.json) {
    const json: ValidationJson = {
      ok: result.problems.length === 0,
      problems: [
        ...result.warnings.map((problem) => problemJson(problem, 'warning')),
        ...result.problems.map((problem) => problemJson(problem, 'error')),
      ],
    };
    io.out(JSON.stringify(json, null, 2));
    return json.ok ? 0 : 2;
  }
  for (const warning of result.warnings) io.err(`warning: ${formatConfigProblem(warning)}`);
  if (result.error) {
    for (const line of result.error.message.split('\n')) io.err(line);
    return 2;
  }
  io.out(result.summary);
  return 0;
}

interface ValidationResult {
  warnings: ConfigProblem[];
  problems: ConfigProblem[];
  error?: ConfigError;
  /** The `OK: …` line. */
  summary: string;
}

async function validate(configFiles: string[]): Promise<ValidationResult> {
  const failed = (error: ConfigError, warnings: ConfigProblem[]): ValidationResult => ({
    warnings,
    problems: error.problems,
    error,
    summary: '',
  });
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig(configFiles);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return failed(error, error.warningProblems);
  }
  const evaluation = loaded.config.processors.evaluation;
  try {
    await loadEvaluatorRegistry({
      modules: evaluation.modules,
      builtIns: BUILT_IN_EVALUATORS,
      configuredIds: Object.keys(evaluation.evaluators),
      evaluators: evaluation.evaluators,
      locate: loaded.locate,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return failed(error, loaded.warningProblems);
  }
  const evaluators = Object.values(evaluation.evaluators);
  const bindings = evaluators.reduce(
    (sum, entry) => sum + Object.keys(entry.agents).length + Object.keys(entry.agentRoles).length,
    0,
  );
  const modules = evaluation.modules.length > 0 ? `, ${plural(evaluation.modules.length, 'module')} loaded` : '';
  return {
    warnings: loaded.warningProblems,
    problems: [],
    summary:
      `OK: ${configFiles.join(', ')} (${plural(evaluators.length, 'evaluator')}, ` +
      `${plural(bindings, 'binding')}${modules})`,
  };
}

function problemJson(problem: ConfigProblem, severity: ValidationProblemJson['severity']): ValidationProblemJson {
  const { message, hint } = splitHint(problem.message);
  return {
    file: problem.file ?? null,
    line: problem.line ?? null,
    column: problem.column ?? null,
    path: problem.path,
    message,
    severity,
    ...(hint !== undefined ? { hint } : {}),
  };
}

function parseValidateArgs(args: string[]): { configFiles: string[]; json: boolean } {
  try {
    const { values } = parseArgs({
      args,
      options: { config: { type: 'string', short: 'c', multiple: true }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    });
    return { configFiles: values.config?.length ? values.config : [DEFAULT_CONFIG_FILE], json: values.json === true };
  } catch (error) {
    throw new UsageError(`evalon validate: ${(error as Error).message.split('\n')[0]} (see evalon validate --help)`);
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
