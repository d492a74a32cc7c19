/**
 * What `TestKit` does around its collector: the scripted models' environment for the judges, the
 * process's telemetry registered with the kit, and polling the ledger.
 */
import { register, type Telemetry } from '../instrumentation/register-telemetry.ts';
import type { ScriptedModel } from './scripted-model.ts';
import { TestKitError } from './test-kit-error.ts';

/** The scripted models that replace the real ones. */
export type TestKitModelProviders = {
  /** The agent's model: `kit.agentClient()` is an Anthropic client that calls it. */
  agent?: ScriptedModel;
  /**
   * The judges' model. The built-in judges (`llm-judge`, `criteria-judge`) read it; so do evaluators
   * from modules that build their client from `ANTHROPIC_BASE_URL`, which the kit sets while it runs.
   */
  judge?: ScriptedModel;
  /** A model per evaluator id, for the built-in judges, before `judge`. */
  judges?: Record<string, ScriptedModel>;
};

const POLL_INTERVAL_MS = 50;
export const SCRIPTED_API_KEY = 'scripted';
const MODEL_ENV_KEYS = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY'] as const;

export function modelEnv(model: ScriptedModel): Record<string, string> {
  return { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: SCRIPTED_API_KEY };
}

/** The built-in judges' environment: their own model, else the judges' model, else the process's. */
export function judgeEnvironment(models: TestKitModelProviders) {
  return (evaluatorId: string): Record<string, string | undefined> => {
    const model = models.judges?.[evaluatorId] ?? models.judge;
    return model ? { ...process.env, ...modelEnv(model) } : process.env;
  };
}

/** Sets variables for the kit's lifetime; the returned function puts back what was there. */
export function overrideProcessEnv(values: Record<(typeof MODEL_ENV_KEYS)[number], string>): () => void {
  const before = MODEL_ENV_KEYS.map((key) => [key, process.env[key]] as const);
  Object.assign(process.env, values);
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    for (const [key, value] of before) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

/** Registers telemetry exporting to the kit, or fails when another registration owns the process. */
export function registerWith(tracesUrl: string): Telemetry {
  const telemetry = register({
    endpoint: tracesUrl,
    serviceName: 'evalon-test-kit',
    captureContent: true,
    scheduledDelayMillis: 50,
    shutdownOnExit: false,
  });
  if (telemetry.endpoint !== tracesUrl || !telemetry.active) {
    throw new TestKitError(
      `start: telemetry is already registered in this process (exporting to ${telemetry.endpoint ?? 'elsewhere'}), ` +
        'so agent spans would not reach the kit ' +
        '(shut the other registration down, or start the kit with ' +
        'registerTelemetry: false and send spans to kit.otlpUrl)',
    );
  }
  return telemetry;
}

export async function poll<T>(probe: () => Promise<T | undefined>, atMostMs: number): Promise<T | undefined> {
  const deadline = Date.now() + atMostMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}
