/**
 * `evalon simulate <scenario.yaml>...`: runs scenarios against the agent under test, judges them,
 * prints the transcript (live, for a single run) or progress and a summary, writes dataset
 * entries, and exits 0 when every run passes, 1 when one fails, 2 on bad input.
 */
import { parseArgs } from 'node:util';
import { DURATION_FORM, parseDuration } from '../../src/config/duration.ts';
import { createAnthropicModelClient } from '../../src/judge/anthropic-model-client.ts';
import type { ModelClient } from '../../src/judge/model-client.ts';
import { modelSettingsFromEnv } from '../../src/judge/model-settings.ts';
import { colorWanted, createPaint } from '../../src/simulation/output/ansi.ts';
import { createTranscriptPrinter } from '../../src/simulation/output/transcript-printer.ts';
import { progressLine, summaryJson, summaryLines } from '../../src/simulation/output/run-summary.ts';
import { runBatch, type BatchOptions, type BatchResult, type RunOutcome } from '../../src/simulation/run/run-batch.ts';
import { RecordingError } from '../../src/simulation/run/recording-store.ts';
import { ScenarioError } from '../../src/simulation/scenario/scenario-error.ts';
import { loadScenario } from '../../src/simulation/scenario/scenario-loader.ts';
import { evaluatedParticipant, type Scenario } from '../../src/simulation/scenario/scenario.ts';
import { otlpTelemetryFromEnv } from '../../src/simulation/telemetry/otlp-telemetry.ts';
import { type CliCommand, formatHelp } from './command.ts';

export interface SimulateIo {
  out(line: string): void;
  err(line: string): void;
}

/** Injection points for tests and embedding; the CLI uses the defaults. */
export interface SimulateCommandOptions {
  env?: Record<string, string | undefined>;
  /** Color output (default: NO_COLOR / FORCE_COLOR, else whether stdout is a terminal). */
  color?: boolean;
  /** The model client (default: the Anthropic API per the environment). */
  model?: ModelClient;
  /** Remote-agent backoff base in milliseconds (default 1000). */
  remoteBackoffBaseMs?: number;
}

export const DEFAULT_OUT_DIR = 'evalon-runs';

export const simulateCommand: CliCommand = {
  help: {
    usage: '<scenario.yaml>... [options]',
    description:
      'Runs each scenario (simulated participants, the agent under test, event sources), judges the transcript ' +
      'against its eval_criteria and expect_context, and saves a dataset entry per run.',
    options: [
      { flag: '--trials N', description: 'runs per scenario; reports pass^k', default: '1' },
      { flag: '--concurrency N', description: 'runs in flight at once', default: '4' },
      { flag: '--seed S', description: 'base seed for thinking delays; trial t uses S + t - 1', default: '0' },
      { flag: '--out DIR', description: 'dataset entries go to DIR/<scenario>/', default: DEFAULT_OUT_DIR },
      { flag: '--no-save', description: 'do not write dataset entries' },
      { flag: '--record DIR', description: 'save every model call, remote step and delay to DIR for replay' },
      { flag: '--replay DIR', description: 'replay a recorded run offline (no API key needed)' },
      {
        flag: '--agent-endpoint URL',
        description: "evaluate the remote agent at URL (POST URL/v1/step) instead of the scenario's",
      },
      {
        flag: '--agent-id ID',
        description: 'gen_ai.agent.id on exported agent spans',
        default: 'the participant name',
      },
      {
        flag: '--model NAME',
        description: 'model for participants, judge and in-process agent',
        default: '$EVALON_MODEL',
      },
      { flag: '--no-delay', description: 'ignore response_speed thinking delays' },
      { flag: '--timeout DURATION', description: 'simulation time limit per run, e.g. 90s, 10m', default: '10m' },
      { flag: '--json', description: 'print a JSON summary instead of the transcript' },
      { flag: '--no-color', description: 'plain output (also NO_COLOR=1)' },
    ],
    examples: ['evalon simulate scenarios/reschedule_flight.yaml', 'evalon simulate scenarios/*.yaml --trials 5'],
    notes:
      'Environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL (a /bedrock suffix is stripped), EVALON_MODEL,\n' +
      'EVALON_CA_CERTS, OTEL_EXPORTER_OTLP_ENDPOINT (export each agent turn as an invoke_agent span).\n' +
      'Exit codes: 0 every run passed, 1 a run failed, 2 bad input.',
  },
  run: (args, io, { verbose }) => runSimulateCommand(verbose ? [...args, '--verbose'] : args, io),
};

/** Bad command-line input or files: one line, exit code 2. */
export class SimulateUsageError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'SimulateUsageError';
  }
}

interface ParsedArgs {
  files: string[];
  trials: number;
  concurrency: number;
  seed: number;
  outDir?: string;
  recordDir?: string;
  replayDir?: string;
  agentEndpoint?: string;
  agentId?: string;
  model?: string;
  thinkingDelays: boolean;
  timeoutMs?: number;
  json: boolean;
  color?: boolean;
  verbose: boolean;
  help: boolean;
}

export async function runSimulateCommand(
  args: string[],
  io: SimulateIo,
  options: SimulateCommandOptions = {},
): Promise<number> {
  const env = options.env ?? process.env;
  let verbose = args.includes('--verbose');
  try {
    const parsed = parseSimulateArgs(args);
    verbose = parsed.verbose;
    if (parsed.help) {
      io.out(formatHelp(['simulate'], simulateCommand));
      return 0;
    }
    return await simulate(parsed, io, options, env);
  } catch (error) {
    const usage =
      error instanceof SimulateUsageError || error instanceof ScenarioError || error instanceof RecordingError;
    for (const line of (error as Error).message.split('\n')) io.err(line);
    if (verbose && error instanceof Error && error.stack) io.err(error.stack);
    return usage ? 2 : 1;
  }
}

async function simulate(
  parsed: ParsedArgs,
  io: SimulateIo,
  options: SimulateCommandOptions,
  env: Record<string, string | undefined>,
): Promise<number> {
  const scenarios = await loadAll(parsed.files);
  const model = parsed.replayDir ? options.model : (options.model ?? createModel(parsed, env));
  const color = parsed.color ?? options.color ?? colorWanted(env, process.stdout.isTTY === true);
  const paint = createPaint(color);
  const single = scenarios.length === 1 && parsed.trials === 1;
  const telemetry = otlpTelemetryFromEnv(env, {
    ...(parsed.agentId ? { agentId: parsed.agentId } : {}),
    ...(parsed.model ? { model: parsed.model } : {}),
  });
  const live = single && !parsed.json;

  if (live) {
    const scenario = scenarios[0];
    io.out(`Running scenario: ${scenario.name}`);
    io.out(`Conversations: ${scenario.conversations.map((c) => c.name).join(', ')}`);
    io.out(`Criteria: ${scenario.evalCriteria.length + scenario.expectContext.length}`);
    const endpoint = parsed.agentEndpoint ?? evaluatedParticipant(scenario).endpoint;
    if (endpoint) io.out(`Using remote agent at ${endpoint}`);
    if (parsed.replayDir) io.out(`Replaying from ${parsed.replayDir}`);
    io.out('');
    io.out(paint('bold', '=== Transcript ==='));
  }
  const printer = live
    ? createTranscriptPrinter({
        write: io.out,
        color,
        showConversation: scenarios[0].conversations.length > 1,
        agentName: evaluatedParticipant(scenarios[0]).name,
      })
    : undefined;

  const batchOptions: BatchOptions = {
    scenarios,
    trials: parsed.trials,
    concurrency: parsed.concurrency,
    seed: parsed.seed,
    thinkingDelays: parsed.thinkingDelays,
    ...(model ? { model } : {}),
    ...(parsed.outDir ? { outDir: parsed.outDir } : {}),
    ...(parsed.recordDir ? { recordDir: parsed.recordDir } : {}),
    ...(parsed.replayDir ? { replayDir: parsed.replayDir } : {}),
    ...(parsed.agentEndpoint ? { agentEndpoint: parsed.agentEndpoint } : {}),
    ...(parsed.model ? { modelName: parsed.model, judgeModelName: parsed.model } : {}),
    ...(parsed.timeoutMs !== undefined ? { simulationTimeoutMs: parsed.timeoutMs } : {}),
    ...(options.remoteBackoffBaseMs !== undefined ? { remote: { backoffBaseMs: options.remoteBackoffBaseMs } } : {}),
    ...(telemetry
      ? { onAgentTurn: (turn) => telemetry.onAgentTurn(turn), onRunEnd: (runId) => telemetry.onRunEnd(runId) }
      : {}),
    ...(printer ? { onEntry: (_run, entry) => printer.entry(entry) } : {}),
    ...(!single
      ? {
          onRunDone: (outcome: RunOutcome, done: number, total: number) =>
            io.err(progressLine(outcome, done, total, paint)),
        }
      : {}),
  };
  let batch: BatchResult;
  try {
    batch = await runBatch(batchOptions);
  } finally {
    await telemetry?.shutdown();
  }

  const runs = batch.scenarios.flatMap((scenario) => scenario.runs);
  for (const run of runs) {
    if (!run.error) continue;
    io.err(`${run.scenario} trial ${run.trial}: ${run.error.message}`);
    if (parsed.verbose && run.error.stack) io.err(run.error.stack);
  }
  if (parsed.json) {
    io.out(JSON.stringify(summaryJson(batch, parsed.seed), null, 2));
  } else if (live) {
    const run = runs[0];
    if (run.result) {
      io.out('');
      printer!.evaluation(run.result.evaluation);
      if (run.result.endReason.type === 'stalled')
        io.out(
          paint('yellow', '  Note: the simulation stalled (nobody could act any more) and was judged as it stood.'),
        );
    }
    if (run.datasetPath) io.out(`${paint('green', '✓')} Transcript saved to: ${run.datasetPath}`);
    if (run.recordingPath) io.out(`${paint('green', '✓')} Recording saved to: ${run.recordingPath}`);
  } else {
    for (const line of summaryLines(batch, paint)) io.out(line);
  }
  return batch.passed ? 0 : 1;
}

async function loadAll(files: string[]): Promise<Scenario[]> {
  const scenarios: Scenario[] = [];
  const problems: string[] = [];
  for (const file of files) {
    try {
      scenarios.push(await loadScenario(file));
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new SimulateUsageError(problems.join('\n'));
  const seen = new Map<string, string>();
  for (const scenario of scenarios) {
    const other = seen.get(scenario.name);
    if (other !== undefined && other !== scenario.sourcePath) {
      throw new SimulateUsageError(
        `${scenario.sourcePath}: name: scenario name "${scenario.name}" is also used by ${other} (outputs are keyed ` +
          'by name; rename one)',
      );
    }
    seen.set(scenario.name, scenario.sourcePath ?? '');
  }
  return scenarios;
}

function createModel(parsed: ParsedArgs, env: Record<string, string | undefined>): ModelClient {
  const settings = modelSettingsFromEnv(env);
  if (!settings.apiKey)
    throw new SimulateUsageError(
      'ANTHROPIC_API_KEY: not set (export it, or replay a recorded run offline with --replay DIR)',
    );
  return createAnthropicModelClient({ env, ...(parsed.model ? { model: parsed.model } : {}) });
}

export function parseSimulateArgs(args: string[]): ParsedArgs {
  const { values, positionals } = readSimulateArgs(args);
  if (values.help)
    return {
      files: [],
      trials: 1,
      concurrency: 1,
      seed: 0,
      thinkingDelays: true,
      json: false,
      verbose: values.verbose,
      help: true,
    };
  if (positionals.length === 0)
    throw new SimulateUsageError(
      'evalon simulate: no scenario file given (usage: evalon simulate <scenario.yaml>... ; see --help)',
    );
  if (values.record && values.replay)
    throw new SimulateUsageError('evalon simulate: --record and --replay: use one or the other');
  if (values['agent-endpoint'] !== undefined && !/^https?:\/\/\S+$/.test(values['agent-endpoint'])) {
    throw new SimulateUsageError(
      `evalon simulate: --agent-endpoint: expected an http(s) URL, got ${JSON.stringify(values['agent-endpoint'])}`,
    );
  }
  const timeoutMs = values.timeout !== undefined ? durationFlag(values.timeout, '--timeout') : undefined;
  return {
    files: positionals,
    trials: positiveInt(values.trials, '--trials', 1),
    concurrency: positiveInt(values.concurrency, '--concurrency', 4),
    seed: integer(values.seed, '--seed', 0),
    ...(values.save ? { outDir: values.out ?? DEFAULT_OUT_DIR } : {}),
    ...(values.record ? { recordDir: values.record } : {}),
    ...(values.replay ? { replayDir: values.replay } : {}),
    ...(values['agent-endpoint'] ? { agentEndpoint: values['agent-endpoint'] } : {}),
    ...(values['agent-id'] ? { agentId: values['agent-id'] } : {}),
    ...(values.model ? { model: values.model } : {}),
    thinkingDelays: values.delay,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    json: values.json,
    ...(values.color !== undefined ? { color: values.color } : {}),
    verbose: values.verbose,
    help: false,
  };
}

function readSimulateArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      allowNegative: true,
      strict: true,
      options: {
        trials: { type: 'string' },
        concurrency: { type: 'string' },
        seed: { type: 'string' },
        out: { type: 'string' },
        save: { type: 'boolean', default: true },
        record: { type: 'string' },
        replay: { type: 'string' },
        'agent-endpoint': { type: 'string' },
        'agent-id': { type: 'string' },
        model: { type: 'string' },
        delay: { type: 'boolean', default: true },
        timeout: { type: 'string' },
        json: { type: 'boolean', default: false },
        color: { type: 'boolean' },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new SimulateUsageError(`evalon simulate: ${(error as Error).message} (see evalon simulate --help)`);
  }
}

function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new SimulateUsageError(
      `evalon simulate: ${flag}: expected a whole number of at least 1, got ${JSON.stringify(value)}`,
    );
  return number;
}

function integer(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number))
    throw new SimulateUsageError(`evalon simulate: ${flag}: expected a whole number, got ${JSON.stringify(value)}`);
  return number;
}

/** A duration flag in Evalon's one grammar (`90s`, `10m`, `1h30m`, or milliseconds), longer than 0. */
function durationFlag(value: string, flag: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0)
    throw new SimulateUsageError(`evalon simulate: ${flag}: expected ${DURATION_FORM}, got ${JSON.stringify(value)}`);
  return ms;
}
