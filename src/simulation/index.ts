/**
 * `evalon/simulation`: run a scenario against an agent and judge the transcript. What a user calls
 * (load, run, batch), implements (an agent, a code agent, custom event sources, tools) and
 * annotates; the runtime, outputs and the remote agents' wire protocol stay internal. The model client and the judge
 * are at `evalon/judge`.
 *
 * ```ts
 * import { loadScenario, runScenario, SimpleAgentReply } from 'evalon/simulation';
 * import { createAnthropicModelClient } from 'evalon/judge';
 * ```
 */
// Scenarios
export { loadScenario, parseScenario } from './scenario/scenario-loader.ts';
export { ScenarioError } from './scenario/scenario-error.ts';
export type { Scenario } from './scenario/scenario.ts';

// Running
export { runScenario, type RunScenarioOptions, type ScenarioRunResult } from './run/run-scenario.ts';
export { runBatch, type BatchOptions, type BatchResult } from './run/run-batch.ts';
export { AgentStepFailedError, SimulationFailedError, SimulationTimeoutError } from './runtime/simulation-errors.ts';
export type { CustomEventSource } from './runtime/event-source.ts';

// Agents: the contract, a code agent, the in-process and remote agents
export type { Action, Agent, HistoryEntry, SimulationEvent } from './agent/agent.ts';
export { SimpleAgentReply, type SimpleAgent } from './agent/simple-agent.ts';
export { createClaudeAgent } from './agent/claude-agent.ts';
export { createRemoteAgent } from './agent/remote-agent.ts';

// OTel spans of the evaluated agent's turns (the `onAgentTurn` run option)
export { createSimulationTelemetry } from './telemetry/otlp-telemetry.ts';

// Tools of the in-process agent
export { builtInTools } from './tools/tool-registry.ts';
export type { Tool } from './tools/tool.ts';
