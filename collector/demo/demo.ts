/**
 * The running demo: a collector with evaluators bound to the example support agent, the agent
 * (Anthropic SDK tool runner, instrumented with `evalon/instrumentation`) on a scripted model that
 * also plays the LLM judge, and a reviewer answering the human reviews through the API. `evalon
 * demo` drives it; the dashboard test uses it as traffic.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { loadConfig } from '../config/index.ts';
import { startCollector, type RunningCollector } from '../service.ts';
import { silentLogger } from '../logger.ts';
import { register } from '../../src/instrumentation/index.ts';
import { createScriptedModel } from '../../src/testing/scripted-model.ts';
import { createSupportAgent } from '../../examples/support-agent/support-agent.ts';
import { demoConfigYaml, type DemoPorts } from './demo-config.ts';
import { demoModelReply } from './demo-model.ts';
import { startDemoReviewer, type DemoReviewer } from './demo-reviewer.ts';

/**
 * Questions of the demo: some answers pass every evaluator, some fail one, one call fails. Each
 * round is one conversation; its third question ends it, the fourth resumes it (its revision 2),
 * the last ends it again.
 */
export const DEMO_QUESTIONS: ReadonlyArray<{ question: string; fail?: boolean; endsConversation?: boolean }> = [
  { question: 'Where is my order A-17?' },
  { question: 'Has my parcel shipped yet?' },
  { question: 'Can you check order B-2 for me?', endsConversation: true },
  { question: 'Where is order C-404?' },
  { question: 'My order A-17 has not arrived, where is it?', fail: true },
  { question: 'Did order B-2 ship?', endsConversation: true },
];

/** The demo agent, and the conversation each round is. */
export const DEMO_AGENT_ID = 'support-agent';
export const demoConversationId = (round: number) => `demo-${round}`;

export interface Demo {
  readonly collector: RunningCollector;
  readonly otlpUrl: string;
  readonly apiUrl: string;
  readonly modelUrl: string;
  /** Asks every demo question once; `onAnswer` sees each answer (or the error of the failing one). */
  askRound(round: number, onAnswer?: (question: string, answer: string | Error) => void): Promise<void>;
  /** Exports the agent's pending spans now. */
  flush(): Promise<void>;
  /** Stops everything and removes the temporary ledger. Safe twice. */
  close(): Promise<void>;
}

export async function startDemo(ports: DemoPorts): Promise<Demo> {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-demo-'));
  const configFile = join(dir, 'demo-config.yaml');
  writeFileSync(configFile, demoConfigYaml(dir, ports));
  const model = await createScriptedModel();
  // The collector's LLM judge reads its model from the environment: point it at the scripted model.
  const savedEnv = {
    ANTHROPIC_BASE_URL: process.env.ANTHROPIC_BASE_URL,
    ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY,
  };
  process.env.ANTHROPIC_BASE_URL = model.baseURL;
  process.env.ANTHROPIC_API_KEY = 'demo';
  let collector: RunningCollector | undefined;
  let telemetry: ReturnType<typeof register> | undefined;
  let reviewer: DemoReviewer | undefined;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      await reviewer?.stop();
      await telemetry?.shutdown();
      await collector?.shutdown();
      await model.close();
      for (const [name, value] of Object.entries(savedEnv)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(dir, { recursive: true, force: true });
    })());
  try {
    const { config, locate } = loadConfig([configFile]);
    collector = await startCollector(config, { logger: silentLogger, locateConfig: locate });
  } catch (error) {
    await close();
    throw error;
  }
  const otlpUrl = `http://${collector.otlpAddress!.host}:${collector.otlpAddress!.port}`;
  const apiUrl = `http://${collector.apiAddress!.host}:${collector.apiAddress!.port}`;
  // A person's verdicts: the demo's reviewer answers every review through the API.
  reviewer = startDemoReviewer(apiUrl);

  // One question's model call fails (HTTP 500): that interaction is recorded as failed.
  const failingCalls = new Set<number>();
  let call = 0;
  model.respondWith((request) => {
    call++;
    return failingCalls.has(call) ? { errorStatus: 500 } : demoModelReply(request);
  });
  telemetry = register({
    endpoint: otlpUrl,
    serviceName: 'evalon-demo',
    captureContent: true,
    scheduledDelayMillis: 200,
    shutdownOnExit: false,
  });
  const agent = createSupportAgent({
    client: new Anthropic({ apiKey: 'demo', baseURL: model.baseURL, maxRetries: 0 }),
    model: 'claude-demo',
  });

  return {
    collector,
    otlpUrl,
    apiUrl,
    modelUrl: model.baseURL,
    async askRound(round, onAnswer) {
      for (const { question, fail, endsConversation } of DEMO_QUESTIONS) {
        if (closed) return;
        if (fail) failingCalls.add(call + 1);
        try {
          // A question that ends the round's conversation has it evaluated at once.
          const { result } = await agent.ask(question, {
            conversationId: demoConversationId(round),
            endConversation: endsConversation === true,
          });
          onAnswer?.(question, result);
        } catch (error) {
          onAnswer?.(question, error as Error);
        }
      }
    },
    flush: () => telemetry!.forceFlush(),
    close,
  };
}
