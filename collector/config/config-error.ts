/**
 * The one error bad collector configuration raises. Problems are the shared kit's
 * (`src/config/config-problem.ts`), printed the same way as a scenario file's.
 */
import { formatConfigProblem, type ConfigProblem } from '../../src/config/config-problem.ts';

export { formatConfigProblem, type ConfigProblem };

/** Bad configuration: startup stops, and every problem found is listed, one per line. */
export class ConfigError extends Error {
  readonly problems: ConfigProblem[];
  /** Warnings found alongside the problems (misspelled reserved keys and the like), one line each. */
  readonly warnings: string[];
  /** The same warnings as data (`evalon validate --json`). */
  readonly warningProblems: ConfigProblem[];

  constructor(problems: ConfigProblem[], options: { warnings?: ConfigProblem[]; cause?: unknown } = {}) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super([`invalid configuration (${count}):`, ...problems.map(formatConfigProblem)].join('\n'), {
      cause: options.cause,
    });
    this.name = 'ConfigError';
    this.problems = problems;
    this.warningProblems = options.warnings ?? [];
    this.warnings = this.warningProblems.map(formatConfigProblem);
  }
}
