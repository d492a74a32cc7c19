import { describe, expect, it } from 'vitest';
import { COMPONENTS } from '../../collector/components.ts';
import { DEFAULT_API_HOST, DEFAULT_API_PORT } from '../../collector/api/config.ts';
import {
  DEFAULT_DECISION_WAIT_MS,
  DEFAULT_CONVERSATION_IDLE_MS,
  DEFAULT_MAX_PENDING_TRACES,
  DEFAULT_MAX_WAITING_TRACES,
  DEFAULT_PENDING_SPANS_MEMORY_BYTES,
  DEFAULT_SETTLE_MS,
} from '../../collector/processor/interactions/config.ts';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from '../../collector/receiver/otlp/config.ts';
import { DEFAULT_MAX_RECV_MSG_BYTES } from '../../collector/receiver/otlp/grpc/config.ts';

const KINDS = { receivers: 'receiver', processors: 'processor', exporters: 'exporter', extensions: 'extension' };

describe('the component registry', () => {
  it('lists each factory under its own type, in the section of its kind', () => {
    for (const [section, factories] of Object.entries(COMPONENTS)) {
      for (const [key, factory] of Object.entries(factories)) {
        expect(factory.type, `${section}::${key}`).toBe(key);
        expect(factory.kind, `${section}::${key}`).toBe(KINDS[section as keyof typeof KINDS]);
      }
    }
    expect(Object.keys(COMPONENTS.receivers)).toEqual(['otlp']);
    expect(Object.keys(COMPONENTS.processors)).toEqual(['interactions', 'evaluation']);
    expect(Object.keys(COMPONENTS.exporters)).toEqual(['otlphttp', 'prometheus']);
    expect(Object.keys(COMPONENTS.extensions)).toEqual(['api']);
  });

  it('configures the processors by default and every other component only when written', () => {
    const byDefault = Object.values(COMPONENTS).flatMap((factories) =>
      Object.values(factories)
        .filter((factory) => factory.configuredByDefault)
        .map((factory) => factory.type),
    );
    expect(byDefault).toEqual(['interactions', 'evaluation']);
  });

  it('gives each component its defaults from the named constants of its config.ts when its key is empty', () => {
    expect(COMPONENTS.processors.interactions.schema.parse(null)).toEqual({
      settleMs: DEFAULT_SETTLE_MS,
      decisionWaitMs: DEFAULT_DECISION_WAIT_MS,
      maxPendingTraces: DEFAULT_MAX_PENDING_TRACES,
      maxWaitingTraces: DEFAULT_MAX_WAITING_TRACES,
      // pending_spans_memory unset: the processor takes the default for its ledger.
      conversationIdleMs: DEFAULT_CONVERSATION_IDLE_MS,
    });
    expect(COMPONENTS.processors.interactions.schema.parse({ pending_spans_memory: '8MiB' })).toMatchObject({
      pendingSpansMemoryBytes: 8 * 1024 * 1024,
    });
    expect(DEFAULT_PENDING_SPANS_MEMORY_BYTES).toBe(16 * 1024 * 1024);
    expect(COMPONENTS.receivers.otlp.schema.parse({ protocols: { grpc: null } })).toMatchObject({
      http: { maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES },
      grpc: { maxRecvMsgBytes: DEFAULT_MAX_RECV_MSG_BYTES },
    });
    expect(COMPONENTS.extensions.api.schema.parse(undefined)).toEqual({
      host: DEFAULT_API_HOST,
      port: DEFAULT_API_PORT,
    });
  });

  it('declares the signals each exporter carries', () => {
    expect(COMPONENTS.exporters.otlphttp.signals).toEqual(['traces', 'logs', 'metrics']);
    expect(COMPONENTS.exporters.prometheus.signals).toEqual(['metrics']);
  });
});
