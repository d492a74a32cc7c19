/**
 * Many runs at once: scenarios × trials, at most `concurrency` in flight, each trial with its own
 * seed (seed + trial - 1), optionally recorded, replayed and saved as dataset entries; then pass^k
 * per scenario. What the CLI and the benchmark drive.
 */
import type { Scenario } from '../scenario/scenario.ts';
import { saveDatasetEntry } from '../output/dataset-writer.ts';
import type { JudgeTranscriptEntry } from '../../judge/transcript.ts';
import { passHatKs } from './pass-hat-k.ts';
import { loadRecording, saveRecording, type RecordingFile } from './recording-store.ts';
import { runPool } from './run-pool.ts';
import { runScenario, type RunScenarioOptions, type ScenarioRunResult } from './run-scenario.ts';

export interface BatchOptions extends Omit<RunScenarioOptions, 'replay' | 'seed' | 'trial' | 'runId' | 'onEntry'> {
  scenarios: readonly Scenario[];
  trials?: number;
  concurrency?: number;
  /** Base seed: trial t runs with seed + t - 1 (default 0). */
  seed?: number;
  recordDir?: string;
  replayDir?: string;
  /** Where dataset entries go; none are written without it. */
  outDir?: string;
  onEntry?: (run: { scenario: string; trial: number }, entry: JudgeTranscriptEntry) => void;
  onRunDone?: (outcome: RunOutcome, done: number, total: number) => void;
}

export interface RunOutcome {
  scenario: string;
  trial: number;
  seed: number;
  passed: boolean;
  durationMs: number;
  result?: ScenarioRunResult;
  error?: Error;
  datasetPath?: string;
  recordingPath?: string;
}

export interface ScenarioSummary {
  scenario: string;
  file?: string;
  trials: number;
  passes: number;
  /** pass^1 ... pass^trials. */
  passHatK: Record<string, number>;
  runs: RunOutcome[];
}

export interface BatchResult {
  scenarios: ScenarioSummary[];
  /** Every run passed. */
  passed: boolean;
  wallMs: number;
}

export async function runBatch(options: BatchOptions): Promise<BatchResult> {
  const started = Date.now();
  const {
    scenarios,
    trials: trialCount,
    concurrency,
    seed,
    recordDir,
    replayDir,
    outDir,
    onEntry,
    onRunDone,
    ...runOptions
  } = options;
  const trials = Math.max(1, trialCount ?? 1);
  const baseSeed = seed ?? 0;
  const jobs = scenarios.flatMap((scenario) =>
    Array.from({ length: trials }, (_, index) => ({ scenario, trial: index + 1, seed: baseSeed + index })),
  );

  // Load every recording before anything runs, so a missing one is reported up front.
  const recordings = new Map<string, RecordingFile>();
  if (replayDir) {
    for (const job of jobs)
      recordings.set(`${job.scenario.name}#${job.trial}`, await loadRecording(replayDir, job.scenario.name, job.trial));
  }

  let done = 0;
  const outcomes = await runPool(
    jobs.map((job) => async (): Promise<RunOutcome> => {
      const runStarted = Date.now();
      const outcome: RunOutcome = {
        scenario: job.scenario.name,
        trial: job.trial,
        seed: job.seed,
        passed: false,
        durationMs: 0,
      };
      try {
        const recording = recordings.get(`${job.scenario.name}#${job.trial}`);
        const result = await runScenario(job.scenario, {
          ...runOptions,
          seed: job.seed,
          trial: job.trial,
          ...(recording ? { replay: recording.completions } : {}),
          ...(onEntry
            ? {
                onEntry: (entry: JudgeTranscriptEntry) =>
                  onEntry({ scenario: job.scenario.name, trial: job.trial }, entry),
              }
            : {}),
        });
        outcome.result = result;
        outcome.passed = result.passed;
        if (recordDir) {
          outcome.recordingPath = await saveRecording(recordDir, {
            scenario: job.scenario.name,
            trial: job.trial,
            seed: job.seed,
            completions: result.recording,
          });
        }
        if (outDir) outcome.datasetPath = await saveDatasetEntry(result, outDir);
      } catch (error) {
        outcome.error = error instanceof Error ? error : new Error(String(error));
      }
      outcome.durationMs = Date.now() - runStarted;
      onRunDone?.(outcome, ++done, jobs.length);
      return outcome;
    }),
    concurrency ?? 1,
  );

  const summaries = scenarios.map((scenario): ScenarioSummary => {
    const runs = outcomes.filter((outcome) => outcome.scenario === scenario.name);
    const passes = runs.filter((run) => run.passed).length;
    return {
      scenario: scenario.name,
      ...(scenario.sourcePath ? { file: scenario.sourcePath } : {}),
      trials: runs.length,
      passes,
      passHatK: passHatKs(runs.length, passes),
      runs,
    };
  });
  return { scenarios: summaries, passed: outcomes.every((outcome) => outcome.passed), wallMs: Date.now() - started };
}
