/**
 * The runtime's circuit breakers in front of the judge models (src/judge/circuit-breaker.ts): one
 * registry per runtime, on its clock, handed to every evaluator's `create` beside the ledger. A
 * change of state is one log line (open, probing, closed), and the states are what the
 * `evalon.judge.circuit.state` gauge and `GET /api/v1/stats` read.
 */
import {
  CIRCUIT_STATE_VALUES,
  createCircuitBreakers,
  type CircuitBreakers,
  type CircuitState,
} from '../../../src/judge/circuit-breaker.ts';
import type { Logger } from '../../logger.ts';
import type { Clock } from './clock.ts';

export interface JudgeCircuitStats {
  baseURL: string;
  model: string;
  state: CircuitState;
}

export interface JudgeCircuits {
  readonly breakers: CircuitBreakers;
  stats(): JudgeCircuitStats[];
  /** For the gauge: each model's state as 0 closed, 1 open, 2 half-open. */
  gauge(): Array<{ model: string; state: number }>;
}

export function createJudgeCircuits(options: { clock: Clock; logger: Logger }): JudgeCircuits {
  const { clock, logger } = options;
  const breakers = createCircuitBreakers({
    now: () => clock.now(),
    onChange({ baseURL, model }, from, to) {
      const breaker = breakers.for(baseURL, model);
      if (to === 'open')
        logger.warn(
          `evaluation: judge model ${model} at ${baseURL}: circuit open after repeated failures; judge ` +
            `evaluations on it wait, and one probe call goes in ${Math.ceil(breaker.retryInMs() / 1000)} s`,
        );
      else if (to === 'half-open') logger.info(`evaluation: judge model ${model} at ${baseURL}: probing (half-open)`);
      else if (from !== 'closed') logger.info(`evaluation: judge model ${model} at ${baseURL}: circuit closed`);
    },
  });
  return {
    breakers,
    stats: () => breakers.states(),
    gauge: () => breakers.states().map(({ model, state }) => ({ model, state: CIRCUIT_STATE_VALUES[state] })),
  };
}
