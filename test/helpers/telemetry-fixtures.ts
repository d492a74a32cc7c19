/**
 * Fixtures of the exporter tests: a configuration loaded by the real loader from YAML (so what
 * is tested is what a user writes), and the four outcomes an evaluation can end in.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type EvalonConfig } from '../../collector/config/index.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import type { EvaluationRecord } from '../../src/model/records.ts';

export interface PipelineChoice {
  /** `exporters.otlphttp.endpoint`; absent: no otlphttp exporter. */
  otlpEndpoint?: string;
  /** Define `exporters.prometheus` on 127.0.0.1:0. */
  prometheus?: boolean;
  traces?: string[];
  forward?: boolean;
  logs?: string[];
  metrics?: string[];
  compression?: 'gzip' | 'none';
  headers?: Record<string, string>;
}

export function telemetryConfig(choice: PipelineChoice): EvalonConfig {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-exporter-'));
  const list = (names: string[] | undefined) => `[${(names ?? []).join(', ')}]`;
  const exporters: string[] = [];
  if (choice.otlpEndpoint) {
    exporters.push(
      `  otlphttp:\n    endpoint: ${choice.otlpEndpoint}\n    compression: ${choice.compression ?? 'none'}`,
    );
    if (choice.headers) exporters.push(`    headers: ${JSON.stringify(choice.headers)}`);
  }
  if (choice.prometheus) exporters.push('  prometheus:\n    endpoint: 127.0.0.1:0');
  const logs = choice.logs ? `    logs: { exporters: ${list(choice.logs)} }\n` : '';
  const metrics = choice.metrics ? `    metrics: { exporters: ${list(choice.metrics)} }\n` : '';
  const yaml = `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0 }
processors:
  interactions: {}
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
${exporters.length > 0 ? `exporters:\n${exporters.join('\n')}\n` : ''}service:
  pipelines:
    traces:
      receivers: [otlp]
      processors: [interactions, evaluation]
      exporters: ${list(choice.traces)}
      forward: ${choice.forward ?? false}
${logs}${metrics}`;
  const file = join(dir, 'otel-config.yaml');
  writeFileSync(file, yaml);
  try {
    return loadConfig([file]).config;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const TRACE_ID = '5b8efff798038103d269b633813fc60c';
export const SPAN_ID = 'eee19b7ec3c1b174';
export const INTERACTION_ID = `${TRACE_ID}-${SPAN_ID}`;
export const INTERACTION_END = '2026-11-29T19:06:15.000Z';

export function interaction(overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  return {
    interactionId: INTERACTION_ID,
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    agentId: 'support-agent',
    roles: [],
    startTime: '2026-11-29T19:06:14.000Z',
    endTime: INTERACTION_END,
    durationMs: 1000,
    failed: false,
    input: [],
    output: [],
    finalResponseText: 'Your order has shipped.',
    transcript: [],
    toolCalls: [],
    usage: {},
    attributes: {},
    completion: 'structural',
    ...overrides,
  };
}

function base(evaluatorId: string, n: number): Omit<EvaluationRecord, 'outcome'> {
  return {
    evaluationId: `eval-${n}-${evaluatorId}`,
    interactionId: INTERACTION_ID,
    evaluatorId,
    evaluatorVersion: '1',
    agentId: 'support-agent',
    triggeredAt: '2026-11-29T19:06:17.000Z',
    startedAt: '2026-11-29T19:06:17.250Z',
    completedAt: '2026-11-29T19:06:17.750Z',
    attempts: 1,
  };
}

/** One record per outcome: verdict pass (scored, labelled), verdict fail, inconclusive, failed. */
export const OUTCOMES = {
  pass: {
    ...base('quality-judge', 1),
    controlId: 'QA-1',
    outcome: {
      type: 'verdict',
      evaluation: {
        passed: true,
        explanation: 'Response was accurate and helpful',
        score: 0.92,
        label: 'excellent',
        attributes: { model: 'judge-model' },
      },
    },
  },
  fail: {
    ...base('reply-length', 2),
    outcome: {
      type: 'verdict',
      evaluation: { passed: false, explanation: 'reply of 4 characters is shorter than 20', attributes: {} },
    },
  },
  inconclusive: {
    ...base('tool-call-required', 3),
    outcome: { type: 'inconclusive', reason: 'the interaction called no tools and the transcript is empty' },
  },
  failed: {
    ...base('json-schema', 4),
    outcome: {
      type: 'failed',
      error: 'evaluator json-schema: property schema is missing',
      errorType: 'MissingConfigPropertyError',
    },
  },
} satisfies Record<string, EvaluationRecord>;

export const nanos = (iso: string) => Date.parse(iso) * 1e6;

/**
 * A verdict on a conversation (revision 2 of conv-7), parented to its last interaction, triggered
 * when it was known over (long after that interaction ended: the idle window).
 */
export const CONVERSATION_VERDICT = {
  ...base('conversation-judge', 5),
  triggeredAt: '2026-11-29T19:21:15.000Z',
  startedAt: '2026-11-29T19:21:15.200Z',
  completedAt: '2026-11-29T19:21:16.000Z',
  subject: { kind: 'conversation', conversationId: 'conv-7', agentId: 'support-agent', revision: 2 },
  outcome: {
    type: 'verdict',
    evaluation: { passed: true, explanation: 'solved in 3 turns', score: 0.8, attributes: {} },
  },
} satisfies EvaluationRecord;
