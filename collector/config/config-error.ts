/**
 * Configuration problems as data, and the one error that carries all of them.
 */

/**
 * One thing wrong with the configuration. `path` is the YAML mapping the problem is in
 * (`processors::evaluation::evaluators::x::agents::y`, empty at the top level); `message` names
 * the key at fault and ends with a hint in parentheses where one helps.
 */
export interface ConfigProblem {
  path: string;
  message: string;
  /** The file the offending value was read from, as the caller named it. */
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
}

/** `file:line:column: path: message`, leaving out the parts that are unknown. */
export function formatConfigProblem(problem: ConfigProblem): string {
  let where = problem.file ?? '';
  if (problem.file !== undefined && problem.line !== undefined) {
    where += `:${problem.line}`;
    if (problem.column !== undefined) where += `:${problem.column}`;
  }
  const parts = [where, problem.path, problem.message].filter((part) => part !== '');
  return parts.join(': ');
}

/** Bad configuration: startup stops, and every problem found is listed, one per line. */
export class ConfigError extends Error {
  readonly problems: ConfigProblem[];
  /** Warnings found alongside the problems (misspelled reserved keys and the like). */
  readonly warnings: string[];

  constructor(problems: ConfigProblem[], options: { warnings?: string[]; cause?: unknown } = {}) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super([`invalid configuration (${count}):`, ...problems.map(formatConfigProblem)].join('\n'), {
      cause: options.cause,
    });
    this.name = 'ConfigError';
    this.problems = problems;
    this.warnings = options.warnings ?? [];
  }
}
