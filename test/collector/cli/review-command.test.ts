/**
 * `evalon review list|show|submit` against a running collector whose `human-review` entry audits
 * every interaction of support-agent (a binding with sampling-ratio 1): the queue as a table and
 * as JSON, one review with its transcript, a verdict submitted (the reviewer from $USER), a second
 * refused with the recorded one (exit 1), and bad input refused before any request (exit 2).
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReviewCommand } from '../../../collector/cli/review-command.ts';
import type { ReviewRecord } from '../../../collector/ledger/review-store.ts';
import { startTestCollector, testConfigYaml, type TestCollector } from '../../helpers/collector.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { runSupportAgent } from '../../helpers/review-scenario.ts';

const AUDIT = `  evaluation:
    evaluators:
      human-review:
        review_timeout: 3d
        agents:
          support-agent: { trigger: interaction, sampling-ratio: 1.0 }
`;

async function run(args: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    const code = await runReviewCommand(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

describe('evalon review', () => {
  let collector: TestCollector;
  let review: ReviewRecord;
  let api: string[];

  beforeAll(async () => {
    collector = await startTestCollector({ yaml: (dir) => testConfigYaml(dir).replace(/ {2}evaluation:\n/, AUDIT) });
    api = ['--api', collector.apiUrl];
    const provider = new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: collector.otlpUrl }) })],
    });
    runSupportAgent(provider.getTracer('cli'), 'Where is order A-17?', 'It shipped today.');
    await provider.shutdown();
    review = await pollUntil(
      async () => {
        const { reviews } = (await (await fetch(`${collector.apiUrl}/api/v1/reviews`)).json()) as {
          reviews: ReviewRecord[];
        };
        return reviews[0]?.dueAt ? reviews[0] : undefined;
      },
      { timeoutMs: 20_000, what: 'the audit review' },
    );
  });
  afterAll(async () => {
    await collector?.close();
  });

  it('lists the open reviews as a table and as JSON', async () => {
    const table = await run(['list', ...api]);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^QUEUED\s+REVIEW\s+AGENT\s+ENTRY\s+STATUS\s+WHY/);
    expect(table.out).toContain(review.reviewId);
    expect(table.out).toContain('sampled (audit)');
    const json = await run(['list', '--json', '--status', 'open', ...api]);
    expect((JSON.parse(json.out) as { reviews: ReviewRecord[] }).reviews.map((r) => r.reviewId)).toEqual([
      review.reviewId,
    ]);
    expect((await run(['list', '--status', 'done', ...api])).out).toBe('no done reviews');
    const bad = await run(['list', '--status', 'pending', ...api]);
    expect(bad).toMatchObject({ code: 2 });
    expect(bad.err).toContain('status must be one of open, claimed, done, expired');
  });

  it('shows one review with its transcript', async () => {
    const shown = await run(['show', review.reviewId, ...api]);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`Review        ${review.reviewId}`);
    expect(shown.out).toContain('Why           sampled (audit)');
    expect(shown.out).toContain('lookup_order');
    expect((await run(['show', 'no-such-review', ...api])).err).toBe('review no-such-review not found');
  });

  it('refuses bad input with exit 2 before asking the API', async () => {
    const both = await run(['submit', review.reviewId, '--pass', '--fail', '--explanation', 'x', ...api]);
    expect(both).toMatchObject({ code: 2, err: 'evalon review submit: give one of --pass or --fail' });
    const noWhy = await run(['submit', review.reviewId, '--pass', ...api]);
    expect(noWhy).toMatchObject({ code: 2, err: 'evalon review submit: --explanation is required (why the verdict)' });
    const score = await run([
      'submit',
      review.reviewId,
      '--pass',
      '--explanation',
      'x',
      '--score',
      '2',
      '--reviewer',
      'ana',
      ...api,
    ]);
    expect(score).toMatchObject({
      code: 2,
      err: 'evalon review submit: --score must be a number from 0 to 1 (got "2")',
    });
    const nobody = await run(['submit', review.reviewId, '--pass', '--explanation', 'x', ...api], {
      USER: undefined,
    });
    expect(nobody).toMatchObject({ code: 2, err: 'evalon review submit: --reviewer is required ($USER is not set)' });
    const misplaced = await run(['list', '--score', '1', ...api]);
    expect(misplaced).toMatchObject({ code: 2, err: 'evalon review list: --score does not apply to list' });
  });

  it('submits a verdict once (the reviewer from $USER) and refuses a second with the recorded one', async () => {
    const args = [
      'submit',
      review.reviewId,
      '--fail',
      '--score',
      '0.3',
      '--label',
      'slow',
      '--explanation',
      'took a day',
    ];
    const first = await run([...args, ...api], { USER: 'ana' });
    expect(first.code).toBe(0);
    expect(first.out).toBe('recorded: fail, score 0.3, label slow, by ana — took a day');
    const second = await run([...args, '--reviewer', 'bo', ...api]);
    expect(second.code).toBe(1);
    expect(second.err).toBe(
      `evalon review submit: review ${review.reviewId} was already submitted\n` +
        'recorded: fail, score 0.3, label slow, by ana — took a day',
    );
    const done = await run(['list', '--status', 'done', '--json', ...api]);
    expect((JSON.parse(done.out) as { reviews: ReviewRecord[] }).reviews[0]).toMatchObject({
      reviewId: review.reviewId,
      status: 'done',
    });
  });
});
