/**
 * One run of a scenario, end to end: simulate, then judge the transcript and check the final
 * context. Every model call, remote step and thinking delay goes through one completion gate, so
 * the run can be recorded and replayed offline with an identical transcript and verdict.
 */
import { randomUUID } from 'node:crypto';
import { combineResults, judgeCriteria, type JudgeVerdict } from '../../judge/criteria-judge.ts';
import { cloneJson, type JsonObject } from '../../judge/json-value.ts';
import type { ModelClient } from '../../judge/model-client.ts';
import type { JudgeTranscriptEntry } from '../../judge/transcript.ts';
import { agentPromptFor } from '../agent/agent-prompts.ts';
import type { Agent } from '../agent/agent.ts';
import { createClaudeAgent } from '../agent/claude-agent.ts';
import { createRemoteAgent } from '../agent/remote-agent.ts';
import { fromSimpleAgent, type SimpleAgent } from '../agent/simple-agent.ts';
import { CompletionGate, type RecordedCompletion } from '../runtime/completion-gate.ts';
import type { CustomEventSource } from '../runtime/event-source.ts';
import { gatedModelClient, offlineModelClient } from '../runtime/gated-model-client.ts';
import { runSimulation, type EndReason } from '../runtime/scenario-runner.ts';
import { evaluatedParticipant, type Scenario } from '../scenario/scenario.ts';
import { declaredTools } from '../tools/declared-tools.ts';
import type { Tool } from '../tools/tool.ts';
import type { AgentKind, SimulationAgentTurn } from '../telemetry/agent-turn-spans.ts';
import { checkContextExpectations } from './context-expectations.ts';

export interface RunScenarioOptions {
  /** The model for simulated participants, event sources, the judge and the in-process agent. Optional in replay. */
  model?: ModelClient;
  /** The agent under test. Default: a remote agent when an endpoint is set, else the in-process Claude agent. */
  agent?: Agent;
  /** A code agent, adapted under the evaluated participant's name. */
  simpleAgent?: SimpleAgent;
  /** Overrides the evaluated participant's `endpoint`. */
  agentEndpoint?: string;
  /** Tools of the in-process agent (default: the evaluated participant's `tools`, else all built-in tools). */
  tools?: readonly Tool[];
  maxToolRounds?: number;
  /** Remote agent retry tuning (tests shorten the 1 s backoff base). */
  remote?: { backoffBaseMs?: number; maxRetries?: number; timeoutMs?: number };
  customParticipants?: Record<string, Agent>;
  eventSources?: Record<string, CustomEventSource>;
  /** Seeds thinking delays. */
  seed?: number;
  /** Apply response_speed delays (default true). */
  thinkingDelays?: boolean;
  simulationTimeoutMs?: number;
  /** Replay these completions instead of calling models and remote agents. */
  replay?: readonly RecordedCompletion[];
  /** Identifies the run (OTel conversation id); a random UUID by default. */
  runId?: string;
  trial?: number;
  modelName?: string;
  judgeModelName?: string;
  /** Tokens each judge request may take; overrides the scenario's `eval_max_input_tokens`. */
  judgeMaxInputTokens?: number;
  onEntry?: (entry: JudgeTranscriptEntry) => void;
  /** Each evaluated-agent step, for telemetry (see telemetry/otlp-telemetry.ts). */
  onAgentTurn?: (turn: SimulationAgentTurn) => void;
  /** The simulation of the run is over (before judging), however it ended: telemetry ends its conversation. */
  onRunEnd?: (runId: string) => void;
}

export interface ScenarioRunResult {
  runId: string;
  scenarioName: string;
  trial: number;
  transcript: JudgeTranscriptEntry[];
  endReason: EndReason;
  /** Judge results and context assertions, combined. */
  evaluation: JudgeVerdict;
  passed: boolean;
  /** The context after the run (changed by the built-in tools). */
  finalContext: JsonObject;
  /** Every completion in order: what `--record` saves and `--replay` reads. */
  recording: RecordedCompletion[];
  durationMs: number;
}

export async function runScenario(scenario: Scenario, options: RunScenarioOptions = {}): Promise<ScenarioRunResult> {
  const started = Date.now();
  const runId = options.runId ?? randomUUID();
  const trial = options.trial ?? 1;
  const gate = new CompletionGate(options.replay ? { mode: 'replay', recording: options.replay } : { mode: 'record' });
  const inner = options.model ?? (options.replay ? offlineModelClient() : undefined);
  if (!inner) throw new TypeError('runScenario: a model client is required (pass options.model)');
  const model = gatedModelClient(gate, inner);
  const context = cloneJson(scenario.context);
  const evaluated = evaluatedParticipant(scenario);
  const { agent, kind } = buildAgent(scenario, options, model, context);

  let simulation: Awaited<ReturnType<typeof runSimulation>>;
  try {
    simulation = await runSimulation({
      scenario,
      agent,
      model,
      gate,
      seed: options.seed ?? 0,
      thinkingDelays: options.thinkingDelays ?? true,
      ...(options.simulationTimeoutMs !== undefined ? { timeoutMs: options.simulationTimeoutMs } : {}),
      ...(options.customParticipants ? { customParticipants: options.customParticipants } : {}),
      ...(options.eventSources ? { eventSources: options.eventSources } : {}),
      ...(options.onEntry ? { onEntry: options.onEntry } : {}),
      ...(options.onAgentTurn
        ? {
            onAgentTurn: (turn) =>
              options.onAgentTurn!({
                ...turn,
                runId,
                scenario: scenario.name,
                trial,
                agentKind: kind,
                ...(kind === 'claude' && evaluated.model ? { model: evaluated.model } : {}),
              }),
          }
        : {}),
      ...(options.modelName ? { modelName: options.modelName } : {}),
    });
  } finally {
    options.onRunEnd?.(runId);
  }

  const maxInputTokens = options.judgeMaxInputTokens ?? scenario.evalMaxInputTokens;
  const judged = await judgeCriteria({
    criteria: scenario.evalCriteria,
    transcript: simulation.transcript,
    // Every party but the agent under test plays a user: their messages are kept whole longest.
    isUserMessage: (entry) => entry.sender !== evaluated.name,
    ...(maxInputTokens !== undefined ? { maxInputTokens } : {}),
    model,
    scenario: {
      name: scenario.name,
      description: scenario.description,
      conversations: scenario.conversations.map((c) => c.name),
    },
    groundTruth: scenario.context,
    ...(scenario.evalPromptTemplate ? { promptTemplate: scenario.evalPromptTemplate } : {}),
    ...(options.judgeModelName ? { modelName: options.judgeModelName } : {}),
  });
  const evaluation = combineResults([...judged.criteria, ...checkContextExpectations(scenario.expectContext, context)]);
  return {
    runId,
    scenarioName: scenario.name,
    trial,
    transcript: simulation.transcript,
    endReason: simulation.endReason,
    evaluation,
    passed: evaluation.passed,
    finalContext: context,
    recording: gate.log(),
    durationMs: Date.now() - started,
  };
}

function buildAgent(
  scenario: Scenario,
  options: RunScenarioOptions,
  model: ModelClient,
  context: JsonObject,
): { agent: Agent; kind: AgentKind } {
  const evaluated = evaluatedParticipant(scenario);
  if (options.agent) return { agent: options.agent, kind: options.agent.replayable ? 'remote' : 'code' };
  if (options.simpleAgent) return { agent: fromSimpleAgent(options.simpleAgent, evaluated.name), kind: 'code' };
  const endpoint = options.agentEndpoint ?? evaluated.endpoint;
  if (endpoint) {
    const agent = createRemoteAgent({
      endpoint,
      agentName: evaluated.name,
      ...(options.remote?.backoffBaseMs !== undefined ? { backoffBaseMs: options.remote.backoffBaseMs } : {}),
      ...(options.remote?.maxRetries !== undefined ? { maxRetries: options.remote.maxRetries } : {}),
      ...(options.remote?.timeoutMs !== undefined ? { timeoutMs: options.remote.timeoutMs } : {}),
    });
    return { agent, kind: 'remote' };
  }
  const observes = scenario.observations.some((observation) => observation.participant === evaluated.name);
  // The participant's own model wins over the run's: it is part of the agent under test.
  const modelName = evaluated.model ?? options.modelName;
  const agent = createClaudeAgent({
    model,
    tools: options.tools ?? declaredTools(evaluated),
    context,
    systemPrompt: evaluated.systemPrompt ?? agentPromptFor(observes),
    agentName: evaluated.name,
    ...(options.maxToolRounds !== undefined ? { maxToolRounds: options.maxToolRounds } : {}),
    ...(modelName ? { modelName } : {}),
  });
  return { agent, kind: 'claude' };
}
