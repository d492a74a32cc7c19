/**
 * Acceptance: with the collector stopped, each example still answers (and its CLI still ends),
 * and an agent answering call after call keeps its memory bounded: the export queue stops at its
 * limit and what does not fit is dropped and counted.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActivityAgent, finalText } from '../../examples/plain-fetch-agent/activity-agent.ts';
import { activityReply } from '../../examples/plain-fetch-agent/scripted-replies.ts';
import { supportReply } from '../../examples/support-agent/scripted-replies.ts';
import { createSupportAgent } from '../../examples/support-agent/support-agent.ts';
import { register } from '../../src/instrumentation/index.ts';
import { createScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model.ts';
import { runExample, stoppedCollectorUrl } from './run-example.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const MB = 1024 * 1024;

let deadUrl: string;
let model: ScriptedModel;
beforeAll(async () => {
  deadUrl = await stoppedCollectorUrl();
  model = await createScriptedModel();
});
afterAll(async () => {
  await model.close();
});

describe('with the collector stopped', () => {
  for (const [name, script, expected] of [
    [
      'support agent',
      'examples/support-agent/main.ts',
      'Order A-17 has shipped with UPS and should arrive on Thursday.',
    ],
    [
      'plain-fetch agent',
      'examples/plain-fetch-agent/main.ts',
      'Saturday looks sunny and 24°C in Lisbon: try the hiking trail by the lake.',
    ],
  ] as const) {
    it(`the ${name} CLI still answers and ends`, async () => {
      const run = await runExample(script, ['--scripted'], { OTEL_EXPORTER_OTLP_ENDPOINT: deadUrl });
      expect(run.code, run.stderr).toBe(0);
      expect(run.fields.answer).toBe(expected);
      expect(run.fields.interaction).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}$/);
    });
  }

  it('the support agent answers call after call with its memory bounded', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_TIMEOUT', '2000');
    const maxQueueSize = 256;
    const maxQueueBytes = 4 * MB;
    const telemetry = register({
      endpoint: deadUrl,
      captureContent: true,
      maxQueueSize,
      maxQueueBytes,
      shutdownOnExit: false,
      shutdownTimeoutMillis: 500,
    });
    model.respondWith(supportReply);
    const agent = createSupportAgent({
      client: new Anthropic({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 }),
      model: 'claude-scripted',
    });
    // A long question (a pasted order history) makes every span heavy: an unbounded queue would show.
    const history = `Previous orders: ${'A-1 trail shoes, returned; '.repeat(2400)}`;
    const ask = async () => {
      const { result } = await agent.ask(`Where is my order A-17? ${history}`);
      model.requests.length = 0; // the scripted model keeps requests; we measure the agent
      return result;
    };
    try {
      for (let i = 0; i < 50; i++) await ask();
      const baseline = heapUsed();
      const rssBaseline = process.memoryUsage().rss;
      for (let i = 0; i < 400; i++)
        expect(await ask()).toBe('Order A-17 has shipped with UPS and should arrive on Thursday.');
      const middle = heapUsed();
      const rssMiddle = process.memoryUsage().rss;
      for (let i = 0; i < 400; i++)
        expect(await ask()).toBe('Order A-17 has shipped with UPS and should arrive on Thursday.');
      const end = heapUsed();
      const stats = telemetry.stats();
      console.log(
        `collector down, 2 × 400 calls: heap ${((middle - baseline) / MB).toFixed(1)} MB then ` +
          `${((end - middle) / MB).toFixed(1)} MB, ` +
          `rss +${((rssMiddle - rssBaseline) / MB).toFixed(1)} MB then ` +
          `+${((process.memoryUsage().rss - rssMiddle) / MB).toFixed(1)} MB; ` +
          `external ${(process.memoryUsage().external / MB).toFixed(1)} MB; ${JSON.stringify(stats)}`,
      );
      // A call makes 6 spans, two of them carrying the 65 kB question: 400 calls would hold over
      // 50 MB in an unbounded queue. Once the queue is full the heap stops growing; what remains
      // is the queue (≤ 4 MB) and the batch the exporter is retrying, depending on when we look.
      expect(stats.queuedSpans).toBeLessThanOrEqual(maxQueueSize);
      expect(stats.queuedBytes).toBeLessThanOrEqual(maxQueueBytes);
      expect(stats.droppedSpans).toBeGreaterThan(2000);
      expect(end - middle).toBeLessThan(24 * MB);
      expect(end - baseline).toBeLessThan(48 * MB);
      // RSS is noisier (allocator reservations): it plateaus, so only a generous bound.
      expect(process.memoryUsage().rss - rssMiddle).toBeLessThan(128 * MB);
    } finally {
      await telemetry.shutdown();
      vi.unstubAllEnvs();
    }
  });

  it('the plain-fetch agent answers call after call with its memory bounded', async () => {
    const telemetry = register({
      endpoint: deadUrl,
      captureContent: true,
      maxQueueSize: 128,
      shutdownOnExit: false,
      shutdownTimeoutMillis: 500,
    });
    model.respondWith(activityReply);
    const agent = createActivityAgent({ baseURL: model.baseURL, apiKey: 'test', model: 'claude-scripted' });
    try {
      for (let i = 0; i < 30; i++) await agent.ask('What can I do this weekend in Oslo?');
      const baseline = heapUsed();
      for (let i = 0; i < 300; i++) {
        const { result } = await agent.ask('What can I do this weekend in Oslo?');
        expect(finalText(result)).toBe('Saturday brings rain in Oslo: try the climbing gym, then a café.');
        model.requests.length = 0;
      }
      const growth = heapUsed() - baseline;
      expect(telemetry.stats().queuedSpans).toBeLessThanOrEqual(128);
      expect(growth).toBeLessThan(16 * MB);
    } finally {
      await telemetry.shutdown();
    }
  });
});
