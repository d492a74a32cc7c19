/** Errors of scenario loading: every problem of a file at once, each with its YAML path and line. */

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
  const where = issue.line !== undefined ? `${file}:${issue.line}:${issue.column ?? 1}` : file;
  const path = formatPath(issue.path);
  return path ? `${where}: ${path}: ${issue.message}` : `${where}: ${issue.message}`;
}

/** `participants.agent.type`, `eval_criteria[2].weight`, `context["a.b"]`. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
