/**
 * The dataset writer: one JSON file per run, `<out>/<scenario>/<scenario>_<yyyyMMdd'T'HHmmss'Z'>.json`
 * (UTC), holding the plan (tool calls in order), the transcript and the evaluation.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JudgeVerdict } from '../../judge/criteria-judge.ts';
import type { JsonValue } from '../../judge/json-value.ts';
import type { JudgeTranscriptEntry } from '../../judge/transcript.ts';
import type { ScenarioRunResult } from '../run/run-scenario.ts';

export interface PlanStep {
  step: number;
  tool: string;
  arguments: JsonValue;
}

/** The tool calls of a transcript, in order, numbered from 1. */
export function toPlan(transcript: readonly JudgeTranscriptEntry[]): PlanStep[] {
  return transcript
    .flatMap((entry) => (entry.type === 'tool_call' ? [{ tool: entry.tool, arguments: entry.arguments }] : []))
    .map((call, index) => ({ step: index + 1, ...call }));
}

/** The evaluation as JSON: scenario, criteria and scores, plus the overall pass and per-criterion detail. */
export function evaluationJson(scenarioName: string, verdict: JudgeVerdict) {
  return {
    scenario_name: scenarioName,
    passed: verdict.passed,
    overall_score: verdict.overallScore,
    summary: verdict.summary,
    criteria: verdict.criteria.map((criterion) => ({
      name: criterion.name,
      description: criterion.description,
      criterion_type: criterion.criterionType,
      weight: criterion.weight,
      passed: criterion.passed,
      score: criterion.score,
      reasoning: criterion.reasoning,
      outcome: criterion.outcome,
      ...(criterion.passThreshold !== undefined ? { pass_threshold: criterion.passThreshold } : {}),
    })),
    usage: verdict.usage,
  };
}

/** `20260323T140000Z` for a UTC instant. */
export function utcStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** Writes the run's dataset entry and returns its path. A taken name gets a `_2`, `_3`... suffix. */
export async function saveDatasetEntry(
  result: ScenarioRunResult,
  outputDir: string,
  now: Date = new Date(),
): Promise<string> {
  const dir = join(outputDir, result.scenarioName);
  await mkdir(dir, { recursive: true });
  const body = `${JSON.stringify(
    {
      run_id: result.runId,
      trial: result.trial,
      end_reason: result.endReason,
      plan: toPlan(result.transcript),
      transcript: result.transcript,
      evaluation: evaluationJson(result.scenarioName, result.evaluation),
      final_context: result.finalContext,
    },
    null,
    2,
  )}\n`;
  const base = `${result.scenarioName}_${utcStamp(now)}`;
  for (let attempt = 1; ; attempt++) {
    const path = join(dir, attempt === 1 ? `${base}.json` : `${base}_${attempt}.json`);
    try {
      await writeFile(path, body, { flag: 'wx' });
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
