/**
 * An evaluation processor over a real SQLite ledger file, fed the way the interactions processor
 * feeds it (records stored, then handed on), with test evaluators; fresh interactions to feed it,
 * and the bindings the evaluation-processor tests share.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createSqliteStore, type SqliteLedgerStore } from '../../../../../collector/ledger/sqlite/sqlite-store.ts';
import { silentLogger, type Logger } from '../../../../../collector/logger.ts';
import type { InteractionRecord } from '../../../../../src/model/records.ts';
import {
  createEvaluationProcessor,
  type EvaluationProcessor,
  type EvaluationProcessorOptions,
} from '../../../../../collector/processor/evaluation/evaluation-processor.ts';
import { createEvaluatorRegistry } from '../../../../../collector/processor/evaluation/evaluator-registry.ts';
import type { EvaluatorDefinition } from '../../../../../src/evaluation/evaluator.ts';
import { testInteractionRecord } from '../../../../../src/testing/index.ts';
import { evaluationConfigFrom } from './evaluation-config.ts';

export interface ProcessorHarness {
  dir: string;
  store: SqliteLedgerStore;
  processor: EvaluationProcessor;
  /** Stores the records and hands them to the processor, as the interactions processor does. */
  record(records: InteractionRecord[]): Promise<void>;
  /** Shuts the processor down and closes the store (the files stay), then starts both again. */
  restart(overrides?: Partial<EvaluationProcessorOptions>): Promise<void>;
  close(): Promise<void>;
}

export async function startProcessorHarness(options: {
  yaml: string;
  evaluators: EvaluatorDefinition[];
  dir?: string;
  logger?: Logger;
  processor?: Partial<EvaluationProcessorOptions>;
}): Promise<ProcessorHarness> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'evalon-evaluation-'));
  const { config } = evaluationConfigFrom(options.yaml);
  const registry = createEvaluatorRegistry(options.evaluators.map((definition) => ({ definition, origin: 'test' })));
  const open = async (overrides: Partial<EvaluationProcessorOptions> = {}) => {
    const store = createSqliteStore({ path: join(dir, 'ledger.db') });
    const processor = createEvaluationProcessor({
      store,
      config,
      registry,
      logger: options.logger ?? silentLogger,
      ...options.processor,
      ...overrides,
    });
    await processor.start();
    return { store, processor };
  };
  let current = await open();
  const harness: ProcessorHarness = {
    dir,
    store: current.store,
    processor: current.processor,
    async record(records) {
      await harness.store.putInteractions(records);
      await harness.processor.consumeInteractions(records);
    },
    async restart(overrides) {
      await harness.processor.shutdown();
      await harness.store.close();
      current = await open(overrides);
      harness.store = current.store;
      harness.processor = current.processor;
    },
    async close() {
      await harness.processor.shutdown();
      await harness.store.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Starts harnesses for the calling test file, and closes each after the test that started it. */
export function processorHarnesses(): (
  options: Parameters<typeof startProcessorHarness>[0],
) => Promise<ProcessorHarness> {
  const harnesses: ProcessorHarness[] = [];
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
  });
  return async (options) => {
    const started = await startProcessorHarness(options);
    harnesses.push(started);
    return started;
  };
}

/** A new interaction of `agentId`, ended now, with its own trace and span ids. */
export function interaction(agentId: string, overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  const traceId = overrides.traceId ?? randomBytes(16).toString('hex');
  const spanId = overrides.spanId ?? randomBytes(8).toString('hex');
  return testInteractionRecord({
    agentId,
    traceId,
    spanId,
    interactionId: `${traceId}-${spanId}`,
    endTime: new Date().toISOString(),
    ...overrides,
  });
}

/**
 * Two evaluators bound by agent and by role: `quality` for support-agent and the customer-facing
 * role (its billing-agent entry disabled), `length` for support-agent and billing-agent (with a
 * min-length of its own for billing-agent).
 */
export const QUALITY_AND_LENGTH_BINDINGS = `
concurrency: 4
evaluators:
  quality:
    control-id: QA-1
    agents:
      support-agent: { trigger: interaction }
      billing-agent: { trigger: interaction, enabled: false }
    agent-roles:
      customer-facing: { trigger: interaction }
  length:
    min-length: 20
    agents:
      support-agent: { trigger: interaction }
      billing-agent: { trigger: interaction, min-length: 50 }
`;
