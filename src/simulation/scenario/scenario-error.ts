/**
 * Errors of scenario loading: every problem of a file at once, each with its YAML path and line,
 * printed by the shared configuration kit as the collector's configuration problems are.
 */
import { formatConfigProblem } from '../../config/config-problem.ts';
import { formatDottedPath } from '../../config/yaml-path.ts';

export interface ScenarioIssue {
  /** YAML path, e.g. ['participants', 'agent', 'type'] or ['eval_criteria', 2, 'weight']. */
  path: Array<string | number>;
  message: string;
  line?: number;
  column?: number;
}

export class ScenarioError extends Error {
  readonly file: string;
  readonly issues: ScenarioIssue[];
  constructor(file: string, issues: ScenarioIssue[], options: { cause?: unknown } = {}) {
    super(issues.map((issue) => formatIssue(file, issue)).join('\n'), options);
    this.name = 'ScenarioError';
    this.file = file;
    this.issues = issues;
  }
}

/** `file:line:col: path: message`: the file, the YAML path and what was expected. */
export function formatIssue(file: string, issue: ScenarioIssue): string {
  return formatConfigProblem({
    file,
    path: formatPath(issue.path),
    message: issue.message,
    ...(issue.line !== undefined ? { line: issue.line, column: issue.column ?? 1 } : {}),
  });
}

/** `participants.agent.type`, `eval_criteria[2].weight`, `context["a.b"]`. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  return formatDottedPath(path);
}
