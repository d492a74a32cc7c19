/**
 * A reusable runner: shared defaults (model, agent factory, timeouts) for many runs, sequential or
 * concurrent. Runs share nothing else: each has its own gate, context copy and actors.
 */
import type { Scenario } from '../scenario/scenario.ts';
import { runScenario, type RunScenarioOptions, type ScenarioRunResult } from './run-scenario.ts';

export interface SimulationRunner {
  run(scenario: Scenario, options?: RunScenarioOptions): Promise<ScenarioRunResult>;
}

export function createSimulationRunner(defaults: RunScenarioOptions = {}): SimulationRunner {
  return {
    run: (scenario, options = {}) => runScenario(scenario, { ...defaults, ...options }),
  };
}
