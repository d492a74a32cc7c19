/** The multi-run outputs: a progress line per finished run, the summary table and the --json summary. */
import type { BatchResult, RunOutcome } from '../run/run-batch.ts';
import type { Paint } from './ansi.ts';

export const PROGRESS_WIDTH = 20;

/** `[#######-------------]  7/20  reschedule_flight #3  PASS  0.93  (12.4s)` */
export function progressLine(outcome: RunOutcome, done: number, total: number, paint: Paint): string {
  const filled = Math.round((done / total) * PROGRESS_WIDTH);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(PROGRESS_WIDTH - filled)}]`;
  const count = `${String(done).padStart(String(total).length)}/${total}`;
  const verdict = outcome.error
    ? paint('red', 'ERROR')
    : outcome.passed
      ? paint('green', 'PASS ')
      : paint('red', 'FAIL ');
  const score = outcome.result ? outcome.result.evaluation.overallScore.toFixed(2) : '  - ';
  const detail = outcome.error ? `  ${outcome.error.message.split('\n')[0]}` : '';
  return (
    `${bar} ${count}  ${outcome.scenario} #${outcome.trial}  ${verdict} ${score}  ` +
    `(${(outcome.durationMs / 1000).toFixed(1)}s)${detail}`
  );
}

export function summaryLines(batch: BatchResult, paint: Paint): string[] {
  const width = Math.max(...batch.scenarios.map((s) => s.scenario.length), 8);
  const lines = [paint('bold', '=== Summary ===')];
  for (const scenario of batch.scenarios) {
    const k = scenario.trials;
    const passHat =
      k > 1
        ? `   pass^1 ${scenario.passHatK['1'].toFixed(2)}   pass^${k} ${scenario.passHatK[String(k)].toFixed(2)}`
        : '';
    const mark = scenario.passes === scenario.trials ? paint('green', 'PASS') : paint('red', 'FAIL');
    lines.push(`  ${mark}  ${scenario.scenario.padEnd(width)}  ${scenario.passes}/${scenario.trials} passed${passHat}`);
  }
  const runs = batch.scenarios.flatMap((s) => s.runs);
  const failed = runs.filter((run) => !run.passed).length;
  lines.push(
    '  Result: ' +
      `${failed === 0 ? paint('green', 'PASS') : paint('red', `FAIL (${failed} of ${runs.length} runs failed)`)}  in ` +
      `${(batch.wallMs / 1000).toFixed(1)}s`,
  );
  return lines;
}

export function summaryJson(batch: BatchResult, seed: number) {
  return {
    passed: batch.passed,
    seed,
    wall_ms: batch.wallMs,
    scenarios: batch.scenarios.map((scenario) => ({
      name: scenario.scenario,
      ...(scenario.file ? { file: scenario.file } : {}),
      trials: scenario.trials,
      passes: scenario.passes,
      pass_hat_k: scenario.passHatK,
      runs: scenario.runs.map((run) => ({
        trial: run.trial,
        seed: run.seed,
        passed: run.passed,
        duration_ms: run.durationMs,
        ...(run.result
          ? {
              run_id: run.result.runId,
              overall_score: run.result.evaluation.overallScore,
              end_reason: run.result.endReason,
              criteria: run.result.evaluation.criteria.map((c) => ({
                name: c.name,
                passed: c.passed,
                score: c.score,
                outcome: c.outcome,
              })),
            }
          : {}),
        ...(run.datasetPath ? { dataset: run.datasetPath } : {}),
        ...(run.recordingPath ? { recording: run.recordingPath } : {}),
        ...(run.error ? { error: run.error.message } : {}),
      })),
    })),
  };
}
