/**
 * A production conversation, recorded for real: the example support agent (the Anthropic SDK tool
 * runner on the scripted model, instrumented with `register()` and `invokeAgent({ conversationId })`
 * per turn) answers each question, its spans go to a real collector over OTLP, and the collector's
 * interaction records of the conversation are read back through its API.
 */
import Anthropic from '@anthropic-ai/sdk';
import { supportReply } from '../../examples/support-agent/scripted-replies.ts';
import { createSupportAgent, SUPPORT_AGENT } from '../../examples/support-agent/support-agent.ts';
import { invokeAgent, register, type Telemetry } from '../../src/instrumentation/index.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import { createScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model.ts';
import type { TestCollector } from './collector.ts';
import { pollUntil } from './poll.ts';

export const SUPPORT_MODEL = 'claude-support-scripted';

export interface ProductionAgents {
  /** The support agent answers each question, one interaction per turn of `conversationId`. */
  converse(conversationId: string, questions: readonly string[]): Promise<InteractionRecord[]>;
  /** Another agent's turn under the same conversation id (one interaction of `agentId`). */
  otherAgentTurn(agentId: string, conversationId: string, question: string): Promise<void>;
  close(): Promise<void>;
}

/** Registers the instrumentation for this test process (once): spans go to `collector`. */
export async function startProductionAgents(collector: TestCollector): Promise<ProductionAgents> {
  const telemetry: Telemetry = register({
    endpoint: collector.otlpUrl,
    serviceName: 'support-service',
    captureContent: true,
    shutdownOnExit: false,
    scheduledDelayMillis: 50,
  });
  const model: ScriptedModel = await createScriptedModel();
  model.respondWith(supportReply);
  // Created after register(): the client reads the content mode when it is constructed.
  const agent = createSupportAgent({
    client: new Anthropic({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 }),
    model: SUPPORT_MODEL,
  });
  const recorded = (conversationId: string, agentId: string, count: number) =>
    pollUntil(
      async () => {
        await telemetry.forceFlush();
        const all = await collector.interactions(`?conversation=${encodeURIComponent(conversationId)}&limit=1000`);
        const own = all.filter((record) => record.agentId === agentId);
        return own.length >= count ? own.sort((a, b) => a.startTime.localeCompare(b.startTime)) : undefined;
      },
      { timeoutMs: 20_000, what: `${count} interactions of ${agentId} in conversation ${conversationId}` },
    );
  return {
    async converse(conversationId, questions) {
      for (const question of questions) await agent.ask(question, { conversationId });
      return recorded(conversationId, SUPPORT_AGENT.id, questions.length);
    },
    async otherAgentTurn(agentId, conversationId, question) {
      await invokeAgent({ id: agentId, conversationId, input: question }, async () => `Noted: ${question}`);
      await recorded(conversationId, agentId, 1);
    },
    async close() {
      await telemetry.shutdown();
      await model.close();
    },
  };
}
