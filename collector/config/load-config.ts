/**
 * Loading the collector configuration: read every `--config` file, merge them (later files win
 * key by key), expand `${env:…}`, validate, and either return the normalised configuration with
 * its warnings or throw one `ConfigError` listing every problem with its file, line and YAML path.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { placeFindings, type Finding } from '../../src/config/config-problem.ts';
import { locate, sourceOf, type SourcePosition } from '../../src/config/yaml-source.ts';
import { isRecord, joinPath, splitPath, subjectOf, type YamlPath } from '../../src/config/yaml-path.ts';
import { ConfigError, formatConfigProblem, type ConfigProblem } from './config-error.ts';
import { expandEnvironment, type Environment } from './env-expansion.ts';
import type { EvalonConfig } from './evalon-config.ts';
import { mergeConfigs } from './merge.ts';
import { reservedKeyWarnings } from './reserved-key-warnings.ts';
import { configErrorMap, issueToFinding } from './schema-kit.ts';
import { configSchema } from './schema.ts';
import { checkServiceReferences } from './service-references.ts';
import { checkTlsFiles, resolveTlsPaths } from './tls-paths.ts';
import { readYamlSource, type ConfigSource } from './yaml-source.ts';

export interface LoadConfigOptions {
  /** The environment `${env:NAME}` reads; `process.env` by default. */
  env?: Environment;
}

export interface LoadedConfig {
  config: EvalonConfig;
  /** Rendered like problems (`file:line:column: path: message`); the configuration still loads. */
  warnings: string[];
  /** The same warnings as data. */
  warningProblems: ConfigProblem[];
  /** Where the value at a YAML path was written (checks made after loading place their problems with it). */
  locate: ConfigLocator;
}

/** The file, line and column of the value at `path`, or of the nearest enclosing key written. */
export type ConfigLocator = (path: YamlPath) => SourcePosition | undefined;

/** A SQLite path that is not a file. */
const IN_MEMORY_SQLITE = ':memory:';
const MODULES_PATH: YamlPath = ['processors', 'evaluation', 'modules'];
const SQLITE_PATH: YamlPath = ['processors', 'evaluation', 'ledger', 'sqlite', 'path'];

export function loadConfig(files: string[], options: LoadConfigOptions = {}): LoadedConfig {
  if (files.length === 0) {
    throw new ConfigError([{ path: '', message: 'no configuration file given (pass --config otel-config.yaml)' }]);
  }
  const sources: ConfigSource[] = [];
  const unreadable: ConfigProblem[] = [];
  for (const file of files) {
    const { source, problems } = readYamlSource(file);
    if (source) sources.push(source);
    unreadable.push(...problems);
  }
  if (unreadable.length > 0) throw new ConfigError(unreadable);

  const expansion = expandEnvironment(mergeConfigs(sources.map((source) => source.value)), options.env ?? process.env);
  const written = expansion.value;
  // TLS files are named relative to the file that wrote them; the schema sees absolute paths.
  resolveTlsPaths(written, (path) => baseDirectory(sources, path));
  const problems: Finding[] = [...expansion.problems];
  const warnings: Finding[] = [...expansion.warnings, ...reservedKeyWarnings(written)];

  const parsed = configSchema.safeParse(written, { error: configErrorMap, reportInput: true });
  if (!parsed.success) {
    // A value whose variable is unset was already reported; what the schema says of it is noise.
    const unset = new Set(expansion.problems.map((finding) => joinPath(finding.at)));
    const findings = parsed.error.issues.map((issue) => issueToFinding(issue));
    problems.push(...findings.filter((finding) => !unset.has(joinPath(finding.at))));
  }
  const references = checkServiceReferences(written);
  problems.push(...references.problems);
  warnings.push(...references.warnings);
  const modules = resolveModules(written, sources, problems);
  problems.push(...checkTlsFiles(written));

  const placedWarnings = place(warnings, sources);
  if (!parsed.success || problems.length > 0)
    throw new ConfigError(place(problems, sources), { warnings: placedWarnings });

  const config = parsed.data;
  config.processors.evaluation.modules = modules;
  const ledger = config.processors.evaluation.ledger;
  if (ledger.kind === 'sqlite' && ledger.path !== IN_MEMORY_SQLITE) {
    ledger.path = resolve(baseDirectory(sources, SQLITE_PATH), ledger.path);
  }
  return {
    config,
    warnings: placedWarnings.map(formatConfigProblem),
    warningProblems: placedWarnings,
    locate: (path) => locate(sources, path),
  };
}

/** Module files as absolute paths, each relative to the file that listed it; a missing file is a problem. */
function resolveModules(
  written: Record<string, unknown>,
  sources: readonly ConfigSource[],
  problems: Finding[],
): string[] {
  const evaluation =
    isRecord(written.processors) && isRecord(written.processors.evaluation) ? written.processors.evaluation : {};
  if (!Array.isArray(evaluation.modules)) return [];
  const resolved: string[] = [];
  evaluation.modules.forEach((module, index) => {
    if (typeof module !== 'string' || module === '') return; // the schema reports it
    const at = [...MODULES_PATH, index];
    const absolute = resolve(baseDirectory(sources, at), module);
    if (!existsSync(absolute)) {
      problems.push({
        at,
        message: `${subjectOf(at)} names ${JSON.stringify(module)}, which does not exist (looked for ${absolute})`,
      });
    }
    resolved.push(absolute);
  });
  return resolved;
}

/** The directory of the file that wrote `path`; the working directory for a default. */
function baseDirectory(sources: readonly ConfigSource[], path: YamlPath): string {
  const source = sourceOf(sources, path);
  return source ? dirname(source.absolutePath) : process.cwd();
}

/** Findings placed in their files, as problems reported in the mapping that holds the key. */
function place(findings: readonly Finding[], sources: readonly ConfigSource[]): ConfigProblem[] {
  return placeFindings(findings, sources).map(({ at, message, file, line, column }) => ({
    path: splitPath(at).where,
    message,
    ...(file !== undefined ? { file } : {}),
    ...(line !== undefined ? { line } : {}),
    ...(column !== undefined ? { column } : {}),
  }));
}
