/**
 * Starts a real collector in process for end-to-end tests: a temporary config file (loopback,
 * ephemeral ports, a temporary SQLite ledger, a short settle window) loaded by the real loader.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../collector/config/index.ts';
import { startCollector, type RunningCollector } from '../../collector/service.ts';
import { silentLogger } from '../../collector/logger.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import { pollUntil } from './poll.ts';

export interface TestCollector {
  collector: RunningCollector;
  dir: string;
  configFile: string;
  otlpUrl: string;
  apiUrl: string;
  /** Polls the API until an interaction matching `predicate` is recorded. */
  waitForInteraction(predicate: (record: InteractionRecord) => boolean, timeoutMs?: number): Promise<InteractionRecord>;
  interactions(query?: string): Promise<InteractionRecord[]>;
  close(): Promise<void>;
}

export function testConfigYaml(dir: string, extra = ''): string {
  return `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
processors:
  interactions:
    settle: 150ms
    decision_wait: 3s
  evaluation:
    ledger:
      sqlite: { path: ${join(dir, 'ledger.db')} }
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
${extra}`;
}

export async function startTestCollector(
  options: { yaml?: (dir: string) => string; dir?: string; clock?: () => number } = {},
): Promise<TestCollector> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'evalon-e2e-'));
  const configFile = join(dir, 'otel-config.yaml');
  writeFileSync(configFile, (options.yaml ?? testConfigYaml)(dir));
  const { config } = loadConfig([configFile]);
  const collector = await startCollector(config, {
    logger: silentLogger,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const otlpUrl = `http://${collector.otlpAddress!.host}:${collector.otlpAddress!.port}/v1/traces`;
  const apiUrl = `http://${collector.apiAddress!.host}:${collector.apiAddress!.port}`;
  const interactions = async (query = '') => {
    const response = await fetch(`${apiUrl}/api/v1/interactions${query}`);
    return ((await response.json()) as { interactions: InteractionRecord[] }).interactions;
  };
  return {
    collector,
    dir,
    configFile,
    otlpUrl,
    apiUrl,
    interactions,
    waitForInteraction: (predicate, timeoutMs = 15_000) =>
      pollUntil(async () => (await interactions('?limit=1000')).find(predicate), {
        timeoutMs,
        what: 'the interaction',
      }),
    async close() {
      await collector.shutdown();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
