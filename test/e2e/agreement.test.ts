/**
 * Agreement end to end: two reply-length entries with different minimums judge the same
 * interactions, sent through the official OTLP exporter; `GET /api/v1/agreement` and the
 * `evalon_evaluation_agreement` gauge on the Prometheus endpoint show the pair's rate and kappa.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestCollector, testConfigYaml, type TestCollector } from '../helpers/collector.ts';
import { pollUntil } from '../helpers/poll.ts';
import { runSupportAgent } from '../helpers/review-scenario.ts';

let collector: TestCollector;
beforeAll(async () => {
  collector = await startTestCollector({
    yaml: (dir) =>
      testConfigYaml(dir)
        .replace(
          / {2}evaluation:\n/,
          `  evaluation:
    evaluators:
      reply-length/short:
        min-length: 5
        agents: { support-agent: { trigger: interaction } }
      reply-length/long:
        min-length: 20
        agents: { support-agent: { trigger: interaction } }
    agreement:
      - between: [reply-length/short, reply-length/long]
        window: 10
`,
        )
        .replace('extensions:\n', 'exporters:\n  prometheus: { endpoint: 127.0.0.1:0 }\nextensions:\n')
        .replace(
          'traces: { receivers: [otlp], processors: [interactions, evaluation] }',
          (traces) => `${traces}\n    metrics: { exporters: [prometheus] }`,
        ),
  });
});
afterAll(async () => {
  await collector?.close();
});

it('serves the pair’s rate and kappa on the API and as a gauge', async () => {
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: collector.otlpUrl }) })],
  });
  const tracer = provider.getTracer('agreement');
  // short (≥ 5) / long (≥ 20): fail/fail, pass/fail, pass/pass, fail/fail.
  for (const reply of ['ok', 'a medium reply', 'a considerably longer reply here', 'tiny'])
    runSupportAgent(tracer, 'Where is order A-17?', reply);
  await provider.shutdown();
  type Pair = { a: string; b: string; count: number; rate: number; kappa: number; scoreMae: null; sample: string };
  const pair = await pollUntil(
    async () => {
      const { pairs } = (await (await fetch(`${collector.apiUrl}/api/v1/agreement`)).json()) as { pairs: Pair[] };
      return pairs[0]?.count === 4 ? pairs[0] : undefined;
    },
    { timeoutMs: 20_000, what: 'four pairs' },
  );
  // p_o 3/4; short passes 1/2, long 1/4; p_e 1/2 → kappa 1/2. reply-length gives no scores.
  expect(pair).toEqual({
    a: 'reply-length/short',
    b: 'reply-length/long',
    window: 10,
    count: 4,
    rate: 0.75,
    kappa: 0.5,
    scoreMae: null,
    sample: 'sampled',
  });
  const metrics = collector.collector.prometheusAddress!;
  const text = await (await fetch(`http://${metrics.host}:${metrics.port}/metrics`)).text();
  const sample = (statistic: string) =>
    new RegExp(
      '^evalon_evaluation_agreement\\{[^}]*a="reply-length/short",b="reply-length/long",' +
        `statistic="${statistic}"[^}]*\\} ([\\d.]+)`,
      'm',
    ).exec(text)?.[1];
  expect(sample('rate')).toBe('0.75');
  expect(sample('kappa')).toBe('0.5');
  expect(sample('score_mae')).toBeUndefined();
});
