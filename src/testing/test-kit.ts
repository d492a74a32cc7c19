/**
 * `TestKit`: the integration test harness. It runs a real collector
 * in process, so the runtime triggers evaluators exactly as in production, from the bindings of
 * the configuration. A test has three parts:
 *
 * 1. start the kit with the bindings it needs (`additionalConfig`, merged over a minimal base)
 *    and scripted models for the agent and the judges (`modelProviders`);
 * 2. call the instrumented agent through the kit (`invokeAgent` / `callAgent`), which sends its
 *    spans to the kit's collector and returns the interaction id;
 * 3. read the evaluations from the ledger (`ledger()`), polling until they are recorded
 *    (`awaitEvaluations`), since evaluations run after the agent has replied. A conversation is
 *    evaluated once it is over: end it from the agent (`invokeAgent({ …, endConversation: true })`)
 *    or with `endConversation`, then `awaitConversationEvaluations`.
 *
 * ```ts
 * const kit = await TestKit.start({ additionalConfig, modelProviders: { agent: agentModel, judge: judgeModel } });
 * const { interactionId } = await kit.invokeAgent({ id: 'activity-agent', input: question }, () =>
 *   agent.query(question),
 * );
 * const [record] = await kit.awaitEvaluations(interactionId, { atMost: '30s' });
 * await kit.close();
 * ```
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { silentLogger, type Logger } from '../../collector/logger.ts';
import type { InteractionRecord } from '../model/records.ts';
import { createStoreLedgerClient } from '../../collector/processor/evaluation/store-ledger-client.ts';
import type { RunningCollector } from '../../collector/service.ts';
import type { EvaluationRecord } from '../model/records.ts';
import type { LedgerClient } from '../evaluation/ledger-client.ts';
import {
  invokeAgent,
  type AgentInvocation,
  type AgentReply,
  type InvokeAgentOptions,
} from '../instrumentation/invoke-agent.ts';
import type { Telemetry } from '../instrumentation/register-telemetry.ts';
import type { ScriptedModel } from './scripted-model.ts';
import {
  baseConfigYaml,
  DEFAULT_AT_MOST_MS,
  DEFAULT_TEST_KIT_SETTLE,
  durationMs,
  type TestKitDuration,
} from './test-kit-config.ts';
import { TestKitError } from './test-kit-error.ts';
import {
  type TestKitModelProviders,
  judgeEnvironment,
  modelEnv,
  overrideProcessEnv,
  poll,
  registerWith,
  SCRIPTED_API_KEY,
} from './test-kit-support.ts';

export type TestKitOptions = {
  /** YAML merged over the kit's base configuration: the bindings under test. */
  additionalConfig?: string;
  /**
   * Evaluator module files to load (`processors.evaluation.modules`), relative to the working
   * directory. Module paths written in `additionalConfig` must be absolute.
   */
  modules?: string[];
  modelProviders?: TestKitModelProviders;
  /** The interactions processor's settle window (default 100ms). */
  settle?: string;
  /**
   * Register the process's telemetry with the kit's collector (default true). Turn it off when the
   * test sends spans its own way, to `kit.otlpUrl`.
   */
  registerTelemetry?: boolean;
  /** The collector's log (default: silent). */
  logger?: Logger;
};

export type AwaitEvaluationsOptions = {
  /** How long to poll (default 30 s). */
  atMost?: TestKitDuration;
  /** Wait for at least this many records (default 1). */
  count?: number;
  /** Only the records of this evaluator. */
  evaluatorId?: string;
};

export type AwaitConversationEvaluationsOptions = AwaitEvaluationsOptions & {
  /** The conversation's agent (needed when the conversation id has several). */
  agentId?: string;
  /** Only the records of this revision. */
  revision?: number;
};

export type { TestKitModelProviders };

/** What a traced agent call returns through the kit: its result and its interaction id. */
export type TestKitReply<R> = { result: R; interactionId: string };

export class TestKit {
  /** The collector running in this process. */
  readonly collector: RunningCollector;
  /** The OTLP/HTTP traces URL of the collector. */
  readonly otlpUrl: string;
  /** The collector's HTTP API (`/api/v1/...`). */
  readonly apiUrl: string;
  readonly #dir: string;
  readonly #telemetry: Telemetry | undefined;
  readonly #agentModel: ScriptedModel | undefined;
  readonly #ledger: LedgerClient;
  readonly #restoreEnv: () => void;
  #closed: Promise<void> | undefined;

  private constructor(parts: {
    collector: RunningCollector;
    dir: string;
    telemetry: Telemetry | undefined;
    agentModel: ScriptedModel | undefined;
    restoreEnv: () => void;
  }) {
    this.collector = parts.collector;
    this.#dir = parts.dir;
    this.#telemetry = parts.telemetry;
    this.#agentModel = parts.agentModel;
    this.#restoreEnv = parts.restoreEnv;
    this.#ledger = createStoreLedgerClient(parts.collector.store);
    const otlp = parts.collector.otlpAddress!;
    const api = parts.collector.apiAddress!;
    this.otlpUrl = `http://${otlp.host}:${otlp.port}/v1/traces`;
    this.apiUrl = `http://${api.host}:${api.port}`;
  }

  /** Starts the collector (and registers telemetry with it). Call `close()` when done. */
  static async start(options: TestKitOptions = {}): Promise<TestKit> {
    const dir = mkdtempSync(join(tmpdir(), 'evalon-test-kit-'));
    const files = [join(dir, 'base-config.yaml')];
    writeFileSync(
      files[0],
      baseConfigYaml({
        ledgerPath: join(dir, 'ledger.db'),
        modules: options.modules ?? [],
        settle: options.settle ?? DEFAULT_TEST_KIT_SETTLE,
      }),
    );
    if (options.additionalConfig !== undefined) {
      files.push(join(dir, 'additional-config.yaml'));
      writeFileSync(files[1], options.additionalConfig);
    }
    const models = options.modelProviders ?? {};
    const restoreEnv = models.judge ? overrideProcessEnv(modelEnv(models.judge)) : () => {};
    let collector: RunningCollector | undefined;
    let telemetry: Telemetry | undefined;
    try {
      // Loaded here, not with evalon/testing: unit tests with EvaluatorTestKit never open a ledger.
      const [{ loadConfig }, { startCollector }] = await Promise.all([
        import('../../collector/config/index.ts'),
        import('../../collector/service.ts'),
      ]);
      const { config, locate } = loadConfig(files);
      collector = await startCollector(config, {
        logger: options.logger ?? silentLogger,
        judgeEnv: judgeEnvironment(models),
        locateConfig: locate,
      });
      const otlp = collector.otlpAddress;
      if (!otlp || !collector.apiAddress) {
        throw new TestKitError(
          'start: the collector has no OTLP receiver or no API (additionalConfig must keep receivers::otlp and ' +
            'extensions::api in the service)',
        );
      }
      if (options.registerTelemetry ?? true) telemetry = registerWith(`http://${otlp.host}:${otlp.port}/v1/traces`);
      return new TestKit({ collector, dir, telemetry, agentModel: models.agent, restoreEnv });
    } catch (error) {
      await telemetry?.shutdown();
      await collector?.shutdown();
      restoreEnv();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * An Anthropic client for the agent's scripted model, made after the kit registered telemetry
   * (the SDK reads its tracing settings when a client is constructed).
   */
  agentClient(): Anthropic {
    if (!this.#agentModel)
      throw new TestKitError('agentClient: no agent model (pass modelProviders.agent to TestKit.start)');
    return new Anthropic({ apiKey: SCRIPTED_API_KEY, baseURL: this.#agentModel.baseURL, maxRetries: 0 });
  }

  /**
   * Runs `fn`, the agent, inside an `invoke_agent` span of the agent `options.id`, sends its
   * spans to the collector, and returns its result with the interaction id.
   */
  invokeAgent<R>(
    options: InvokeAgentOptions,
    fn: (invocation: AgentInvocation) => R | PromiseLike<R>,
  ): Promise<TestKitReply<Awaited<R>>> {
    return this.callAgent(() => invokeAgent(options, fn));
  }

  /**
   * Calls an agent that is instrumented already (it returns `invokeAgent`'s reply), then sends
   * its spans to the collector. Rejects when the call was not traced.
   */
  async callAgent<R>(call: () => Promise<AgentReply<R>>): Promise<TestKitReply<R>> {
    const reply = await call();
    await this.flush();
    if (reply.interactionId === undefined) {
      throw new TestKitError(
        'callAgent: the agent call was not traced, so it has no interaction id (is telemetry registered? another ' +
          'OpenTelemetry SDK may own the process)',
      );
    }
    return { result: reply.result, interactionId: reply.interactionId };
  }

  /** Sends the spans the agent has ended to the collector now, instead of on the exporter's schedule. */
  async flush(): Promise<void> {
    await this.#telemetry?.forceFlush();
  }

  /** A `LedgerClient` over the collector's ledger. */
  ledger(): LedgerClient {
    return this.#ledger;
  }

  /** Polls until the interaction is recorded in the ledger. */
  async awaitInteraction(
    interactionId: string,
    options: { atMost?: TestKitDuration } = {},
  ): Promise<InteractionRecord> {
    const atMostMs = durationMs(options.atMost ?? DEFAULT_AT_MOST_MS, 'awaitInteraction: atMost');
    const found = await poll(() => this.#ledger.findInteraction(interactionId), atMostMs);
    if (found) return found;
    throw new TestKitError(
      `awaitInteraction: interaction ${interactionId} was not recorded ` +
        `within ${atMostMs} ms (did its spans reach ${this.otlpUrl}?)`,
    );
  }

  /** Polls the ledger until the interaction has evaluation records (at least `count`), and returns them. */
  async awaitEvaluations(interactionId: string, options: AwaitEvaluationsOptions = {}): Promise<EvaluationRecord[]> {
    const atMostMs = durationMs(options.atMost ?? DEFAULT_AT_MOST_MS, 'awaitEvaluations: atMost');
    const count = options.count ?? 1;
    const evaluations = async () => {
      const records = await this.#ledger.getEvaluations(interactionId);
      return options.evaluatorId === undefined
        ? records
        : records.filter((record) => record.evaluatorId === options.evaluatorId);
    };
    const found = await poll(async () => {
      const records = await evaluations();
      return records.length >= count ? records : undefined;
    }, atMostMs);
    if (found) return found;
    const recorded = (await this.#ledger.findInteraction(interactionId)) !== undefined;
    const which = options.evaluatorId === undefined ? '' : ` of ${options.evaluatorId}`;
    throw new TestKitError(
      `awaitEvaluations: ${(await evaluations()).length} of ${count} evaluation records${which} for interaction ` +
        `${interactionId} within ${atMostMs} ms ` +
        (recorded
          ? '(the interaction is recorded: is an evaluator bound to its agent in additionalConfig?)'
          : `(the interaction is not recorded: did its spans reach ${this.otlpUrl}?)`),
    );
  }

  /**
   * Ends a conversation now, as `POST /api/v1/conversations/{id}/end` does: it is evaluated once
   * its turns on their way have arrived (the settle window). Flushes the agent's spans first.
   */
  async endConversation(conversationId: string, agentId?: string): Promise<void> {
    await this.flush();
    const url = new URL(`${this.apiUrl}/api/v1/conversations/${encodeURIComponent(conversationId)}/end`);
    if (agentId !== undefined) url.searchParams.set('agent', agentId);
    // Its turns may still be on their way to the ledger: wait until the conversation is known.
    const answered = await poll(async () => {
      const response = await fetch(url, { method: 'POST' });
      const body = (await response.json()) as { error?: string };
      return response.status === 404 ? undefined : { status: response.status, body };
    }, DEFAULT_AT_MOST_MS);
    if (answered?.status !== 202) {
      throw new TestKitError(
        `endConversation: ${conversationId}: ${answered?.body.error ?? 'the conversation was not recorded'}`,
      );
    }
  }

  /**
   * Polls the ledger until the conversation has evaluation records (at least `count`, of every
   * revision unless `revision` is given), and returns them, oldest first.
   */
  async awaitConversationEvaluations(
    conversationId: string,
    options: AwaitConversationEvaluationsOptions = {},
  ): Promise<EvaluationRecord[]> {
    const atMostMs = durationMs(options.atMost ?? DEFAULT_AT_MOST_MS, 'awaitConversationEvaluations: atMost');
    const count = options.count ?? 1;
    const store = this.collector.store;
    const evaluations = async () => {
      const agents = options.agentId !== undefined ? [options.agentId] : await store.conversationAgents(conversationId);
      if (agents.length > 1) {
        throw new TestKitError(
          `awaitConversationEvaluations: conversation ${conversationId} has several agents: ${agents.join(', ')} ` +
            '(pass agentId)',
        );
      }
      if (agents.length === 0) return [];
      return (await store.getConversationEvaluations(conversationId, agents[0])).filter(
        (record) =>
          (options.evaluatorId === undefined || record.evaluatorId === options.evaluatorId) &&
          (options.revision === undefined ||
            (record.subject?.kind === 'conversation' && record.subject.revision === options.revision)),
      );
    };
    const found = await poll(async () => {
      const records = await evaluations();
      return records.length >= count ? records : undefined;
    }, atMostMs);
    if (found) return found;
    throw new TestKitError(
      `awaitConversationEvaluations: ${(await evaluations()).length} of ${count} evaluation records for ` +
        `conversation ${conversationId} within ${atMostMs} ms (is it over? end it with endConversation, or mark ` +
        'its last turn with endConversation: true; is an evaluator bound with trigger: conversation?)',
    );
  }

  /**
   * Stops the collector and the telemetry, restores the environment, removes the ledger. Safe
   * twice. Scripted models stay open: they are the test's.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      try {
        await this.#telemetry?.shutdown();
        await this.collector.shutdown();
      } finally {
        this.#restoreEnv();
        rmSync(this.#dir, { recursive: true, force: true });
      }
    })();
    return this.#closed;
  }
}
