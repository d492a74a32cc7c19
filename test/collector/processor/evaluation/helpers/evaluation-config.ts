/** Loads `processors.evaluation` from YAML through the real configuration loader. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type EvaluationProcessorConfig } from '../../../../../collector/config/index.ts';

/** `evaluationYaml` is the body of `processors.evaluation`, indented by 4 spaces or not at all. */
export function evaluationConfigFrom(evaluationYaml: string): {
  config: EvaluationProcessorConfig;
  warnings: string[];
} {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-eval-config-'));
  try {
    const file = join(dir, 'otel-config.yaml');
    const body = evaluationYaml
      .split('\n')
      .map((line) => (line.trim() === '' ? '' : `    ${line}`))
      .join('\n');
    writeFileSync(file, `processors:\n  evaluation:\n    ledger: { sqlite: { path: ':memory:' } }\n${body}\n`);
    const loaded = loadConfig([file], { env: {} });
    return { config: loaded.config.processors.evaluation, warnings: loaded.warnings };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
