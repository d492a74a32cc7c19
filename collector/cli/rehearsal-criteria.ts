/**
 * The criteria a rehearsal is judged against: a `--criteria` file (a YAML list with the scenario
 * `eval_criteria` schema, problems reported at their line and path), or the agent's
 * conversation-bound `criteria-judge` binding in the collector's configuration, read locally
 * (`--config`, else `otel-config.yaml` when there is one), resolved as the collector resolves it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { formatConfigProblem, placeFindings } from '../../src/config/config-problem.ts';
import { formatDottedPath } from '../../src/config/yaml-path.ts';
import { parseYamlSource } from '../../src/config/yaml-source.ts';
import { criteriaSchema } from '../../src/judge/criterion-schema.ts';
import type { Criterion } from '../../src/judge/criterion.ts';
import { findingOf } from '../../src/simulation/scenario/scenario-loader.ts';
import { loadConfig, type EvaluationProcessorConfig } from '../config/index.ts';
import { bindingOf, describeSource, resolveBinding } from '../processor/evaluation/binding-resolution.ts';
import { DEFAULT_CONFIG_FILE } from './args.ts';
import { CommandFailure, usage } from './api-client.ts';
import type { CliIo } from './cli-io.ts';

export const CRITERIA_JUDGE = 'criteria-judge';
/** The trigger of a binding that judges whole conversations. */
export const CONVERSATION_TRIGGER = 'conversation';

export interface RehearsalCriteria {
  criteria: Criterion[];
  promptTemplate?: string;
  /** Where they come from, for the scenario's header. */
  source: string;
}

/** A `--criteria` file; every problem at once, as `file:line:column: [1].weight: …` (exit 2). */
export function criteriaFromFile(file: string, where: string): RehearsalCriteria {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw usage(`${where}: --criteria: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  const { source, syntaxErrors } = parseYamlSource(text, file);
  if (syntaxErrors.length > 0) {
    const [first] = syntaxErrors;
    throw usage(`${file}:${first.line}:${first.column}: invalid YAML: ${first.message}`);
  }
  const value: unknown = source.document.toJS();
  const parsed = criteriaSchema.safeParse(value ?? null);
  if (parsed.success && parsed.data.length > 0) return { criteria: parsed.data, source: `from ${file}` };
  if (parsed.success) throw usage(`${file}: lists no criteria (expected a YAML list of criteria, as eval_criteria)`);
  const findings = parsed.error.issues.map((issue) => findingOf(issue, value));
  throw usage(
    placeFindings(findings, [source])
      .map((finding) =>
        formatConfigProblem({
          file,
          path: formatDottedPath(finding.at),
          message: finding.message,
          ...(finding.line !== undefined ? { line: finding.line, column: finding.column ?? 1 } : {}),
        }),
      )
      .join('\n'),
  );
}

/**
 * The criteria of the agent's `criteria-judge` binding when it is conversation-bound; otherwise
 * `missing` says why there are none (for the error that asks for `--criteria`).
 */
export function criteriaFromConfig(
  configFiles: readonly string[] | undefined,
  agent: { agentId: string; roles: readonly string[] },
  io: CliIo,
): RehearsalCriteria | { missing: string } {
  const files = configFiles?.length ? [...configFiles] : existsSync(DEFAULT_CONFIG_FILE) ? [DEFAULT_CONFIG_FILE] : [];
  if (files.length === 0) return { missing: `no --config given and no ${DEFAULT_CONFIG_FILE} here` };
  const { config, warnings } = loadConfig(files);
  for (const warning of warnings) io.err(`warning: ${warning}`);
  return criteriaOfBinding(config.processors.evaluation, agent, files.join(', '));
}

/** The same, from a loaded configuration (`named`: its files, for messages). */
export function criteriaOfBinding(
  evaluation: Pick<EvaluationProcessorConfig, 'evaluators' | 'defaults'>,
  agent: { agentId: string; roles: readonly string[] },
  named: string,
): RehearsalCriteria | { missing: string } {
  const entry = evaluation.evaluators[CRITERIA_JUDGE];
  if (!entry) return { missing: `${named} has no ${CRITERIA_JUDGE} entry` };
  const resolved = resolveBinding(CRITERIA_JUDGE, entry, evaluation.defaults, agent);
  if (!resolved.enabled)
    return {
      missing: `in ${named}, ${CRITERIA_JUDGE} does not evaluate ${agent.agentId}: ${resolved.disabledBecause}`,
    };
  const binding = bindingOf(entry, resolved.source);
  // Read as text: the trigger a binding may hold grows with the kinds of subject the collector judges.
  const trigger: string | undefined = binding?.trigger;
  if (trigger !== CONVERSATION_TRIGGER) {
    return {
      missing:
        `in ${named}, ${CRITERIA_JUDGE} judges ${agent.agentId} per interaction (${describeSource(resolved.source)} ` +
        `has trigger: ${trigger ?? 'none'}), not per conversation`,
    };
  }
  const at = `${named}: ${CRITERIA_JUDGE} (${describeSource(resolved.source)})`;
  const parsed = criteriaSchema.safeParse(resolved.config.criteria);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `criteria${pathOf(issue.path)}: ${issue.message}`);
    throw new CommandFailure(`${at}: ${problems.join('; ')}`, 2);
  }
  if (parsed.data.length === 0) throw new CommandFailure(`${at}: criteria lists no criteria`, 2);
  const template = resolved.config.prompt_template;
  return {
    criteria: parsed.data,
    ...(typeof template === 'string' && template.trim() !== '' ? { promptTemplate: template } : {}),
    source: `the ${CRITERIA_JUDGE} binding ${describeSource(resolved.source)} in ${named}`,
  };
}

function pathOf(path: readonly PropertyKey[]): string {
  return path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
}
