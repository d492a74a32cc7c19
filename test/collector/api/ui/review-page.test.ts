/**
 * The review page in a real headless Chromium: it opens at /ui/ on the queue, opens a review, shows
 * the transcript with its tool call (arguments and result, escaped: the result's markup is text)
 * and the routed verdict, takes a verdict through the form with the keyboard alone (arrow keys,
 * Tab, typing, Enter), and the verdict is recorded — the API says so — and gone from the queue.
 * With auth on, `/ui/` answers with the sign-in page; the token typed once signs the browser in
 * (a session cookie, HttpOnly, SameSite=Strict), and the page works on that cookie alone.
 * Screenshots: test-artifacts/ui/.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { ReviewRecord } from '../../../../collector/ledger/review-store.ts';
import { createScriptedModel, type ScriptedModel } from '../../../../src/testing/scripted-model.ts';
import { CHROMIUM_MISSING, launchChromium, SCREENSHOTS } from '../../../helpers/browser.ts';
import { startTestCollector, testConfigYaml, type TestCollector } from '../../../helpers/collector.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { judgeReply, ROUTED_REVIEW_EVALUATORS, runSupportAgent } from '../../../helpers/review-scenario.ts';

const ENV_KEYS = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'EVALON_MODEL'] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
const TOKEN = 'page-token-51c2';
let browser: Browser | undefined;
let scripted: ScriptedModel;
const collectors: TestCollector[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  scripted = await createScriptedModel();
  scripted.respondWith(judgeReply);
  process.env.ANTHROPIC_BASE_URL = scripted.baseURL;
  process.env.ANTHROPIC_API_KEY = 'page-key';
  process.env.EVALON_MODEL = 'claude-page';
}, 60_000);
afterAll(async () => {
  await browser?.close();
  for (const collector of collectors) await collector.close();
  await scripted?.close();
  for (const key of ENV_KEYS) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
});

function needBrowser(ctx: TestContext): Browser {
  if (!browser) ctx.skip(CHROMIUM_MISSING);
  return browser!;
}

/** A collector whose criteria-judge failures are routed to review, with one failing interaction sent. */
async function collectorWithReview(auth = ''): Promise<{ collector: TestCollector; interactionId: string }> {
  const collector = await startTestCollector({
    yaml: (dir) =>
      testConfigYaml(dir)
        .replace(/ {2}evaluation:\n/, `  evaluation:\n${ROUTED_REVIEW_EVALUATORS}`)
        .replace('api: { endpoint: 127.0.0.1:0 }', `api: { endpoint: 127.0.0.1:0${auth} }`),
  });
  collectors.push(collector);
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: collector.otlpUrl }) })],
  });
  const interactionId = runSupportAgent(provider.getTracer('page'), 'Where is order A-17?', 'That is wrong.');
  await provider.shutdown();
  const headers: Record<string, string> = auth ? { authorization: `Bearer ${TOKEN}` } : {};
  await pollUntil(
    async () => {
      const response = await fetch(`${collector.apiUrl}/api/v1/reviews`, { headers });
      const { reviews } = (await response.json()) as { reviews: ReviewRecord[] };
      return reviews.some((r) => r.interactionId === interactionId && r.dueAt) ? true : undefined;
    },
    { timeoutMs: 30_000, what: 'the review' },
  );
  return { collector, interactionId };
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

describe('the review page', () => {
  it('shows the queue, a review with its transcript and routed verdict, records a verdict typed', async (ctx) => {
    const chromium = needBrowser(ctx);
    const { collector, interactionId } = await collectorWithReview();
    const page = await chromium.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${collector.apiUrl}/ui/`);
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'support-agent' });
    await expect(row.textContent()).resolves.toContain('routed: criteria-judge recorded fail');
    await shoot(page, 'queue');

    await row.getByRole('link').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Review of support-agent' }).waitFor();
    const main = page.locator('main');
    await expect(main.textContent()).resolves.toContain('Where is order A-17?');
    await expect(main.textContent()).resolves.toContain('lookup_order');
    await expect(main.textContent()).resolves.toContain('"order": "A-17"');
    // The tool result's markup is shown as text, never parsed.
    await expect(main.textContent()).resolves.toContain('shipped <b>today</b>');
    expect(await page.locator('main b').count()).toBe(0);
    await expect(page.getByRole('region', { name: 'Routed verdict' }).textContent()).resolves.toContain('fail');
    await expect(page.getByRole('region', { name: 'Routed verdict' }).textContent()).resolves.toContain(
      'the answer is wrong',
    );
    await shoot(page, 'review');

    // Every field has its label.
    for (const label of ['Pass', 'Fail', 'Score (0 to 1, optional)', 'Label (optional)', 'Explanation', 'Reviewer'])
      expect(await page.getByLabel(label, { exact: true }).count(), label).toBe(1);
    await page.getByLabel('Pass', { exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByLabel('Fail', { exact: true }).isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.type('0.2');
    await page.keyboard.press('Tab');
    await page.keyboard.type('hallucination');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Made up a shipping date.');
    await page.keyboard.press('Tab');
    await page.keyboard.type('ana');
    await page.keyboard.press('Enter');
    await page.getByText('Verdict recorded.').waitFor();
    await shoot(page, 'recorded');

    const reviews = async (status: string) =>
      (
        (await (await fetch(`${collector.apiUrl}/api/v1/reviews?status=${status}`)).json()) as {
          reviews: ReviewRecord[];
        }
      ).reviews;
    const [done] = await reviews('done');
    expect(done).toMatchObject({
      interactionId,
      record: {
        outcome: {
          type: 'verdict',
          evaluation: {
            passed: false,
            score: 0.2,
            label: 'hallucination',
            explanation: 'Made up a shipping date.',
            attributes: { 'evalon.reviewer': 'ana' },
          },
        },
      },
    });
    expect(await reviews('open')).toEqual([]);
    await page.getByRole('link', { name: 'Back to the queue' }).click();
    await page.getByText('No open reviews.').waitFor();
    expect(failures).toEqual([]);
  }, 90_000);

  it('browses conversations turn by turn with their verdicts, and interactions with theirs', async (ctx) => {
    const chromium = needBrowser(ctx);
    const collector = await startTestCollector({
      yaml: (dir) =>
        testConfigYaml(dir).replace(
          / {2}evaluation:\n/,
          `  evaluation:
    evaluators:
      reply-length:
        min-length: 10
        agents: { support-agent: { trigger: conversation } }
      contains:
        values: [order]
        agents: { support-agent: { trigger: interaction } }
`,
        ),
    });
    collectors.push(collector);
    const provider = new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: collector.otlpUrl }) })],
    });
    const tracer = provider.getTracer('page');
    runSupportAgent(tracer, 'Where is my order?', 'Which order?', { id: 'conv-page' });
    runSupportAgent(tracer, 'Order A-17.', 'Order A-17 shipped today.', { id: 'conv-page', ends: true });
    await provider.shutdown();
    await pollUntil(
      async () => {
        const response = await fetch(`${collector.apiUrl}/api/v1/conversations/conv-page/evaluations`);
        const body = (await response.json()) as { evaluations?: unknown[] };
        return response.status === 200 && (body.evaluations?.length ?? 0) > 0 ? true : undefined;
      },
      { timeoutMs: 30_000, what: 'the conversation verdict' },
    );
    const page = await chromium.newPage();
    await page.goto(`${collector.apiUrl}/ui/#/conversations`);
    await page.getByRole('heading', { name: 'Conversations' }).waitFor();
    await page.getByRole('link', { name: 'conv-page' }).click();
    await page.getByRole('heading', { name: 'Conversation conv-page' }).waitFor();
    const main = await page.locator('main').textContent();
    expect(main).toContain('reply-length');
    expect(main).toContain('Where is my order?');
    expect(main).toContain('Order A-17 shipped today.');
    expect(await page.locator('main ol > li').count()).toBeGreaterThanOrEqual(2);
    await shoot(page, 'conversation');
    await page.goto(`${collector.apiUrl}/ui/#/interactions`);
    await page.getByRole('heading', { name: 'Interactions' }).waitFor();
    await page.getByRole('link', { name: 'Open' }).first().click();
    await page.getByRole('heading', { name: 'Interaction of support-agent' }).waitFor();
    await page.getByText('contains').first().waitFor();
  }, 90_000);

  it('signs in once with the token typed, then reviews with the session cookie alone', async (ctx) => {
    const chromium = needBrowser(ctx);
    const { collector, interactionId } = await collectorWithReview(`, auth: { bearer_token: ${TOKEN} }`);
    const context = await chromium.newContext();
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    const first = await page.goto(`${collector.apiUrl}/ui/`);
    expect(first?.status()).toBe(401);
    await page.getByRole('heading', { name: 'Sign in to Evalon reviews' }).waitFor();
    await shoot(page, 'sign-in');
    // The token field has focus on arrival: typing and Enter are all it takes.
    expect(await page.evaluate('document.activeElement?.id')).toBe('token');
    await page.keyboard.type('not-the-token');
    await page.keyboard.press('Enter');
    await page.getByText('The collector refused that token.').waitFor();
    expect(await page.evaluate('document.activeElement?.id')).toBe('token');
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/');

    const [cookie, ...others] = await context.cookies();
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({ name: 'evalon_session', path: '/', httpOnly: true, sameSite: 'Strict' });
    expect(cookie).toMatchObject({ secure: false, expires: -1 });
    expect(cookie!.value).not.toContain(TOKEN);
    // Nothing of the session within the page's reach: no script reads the cookie, no token is stored.
    expect(await page.evaluate('[document.cookie, sessionStorage.length]')).toEqual(['', 0]);

    const row = page.getByRole('row').filter({ hasText: 'support-agent' });
    await row.getByRole('link').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Review of support-agent' }).waitFor();
    await page.getByLabel('Pass', { exact: true }).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Right order, right date.');
    await page.keyboard.press('Tab');
    await page.keyboard.type('ana');
    await page.keyboard.press('Enter');
    await page.getByText('Verdict recorded.').waitFor();
    const done = await fetch(`${collector.apiUrl}/api/v1/reviews?status=done`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(((await done.json()) as { reviews: ReviewRecord[] }).reviews).toMatchObject([
      {
        interactionId,
        record: { outcome: { evaluation: { passed: true, attributes: { 'evalon.reviewer': 'ana' } } } },
      },
    ]);
    // Kept for the browser session: another view needs no second signing in.
    await page.goto(`${collector.apiUrl}/ui/#/interactions`);
    await page.getByRole('heading', { name: 'Interactions' }).waitFor();

    // A session the API no longer accepts: the page says so and leads back to the sign-in.
    await context.clearCookies();
    await page.evaluate("location.hash = '#/conversations'");
    await page.getByRole('heading', { name: 'Signed out' }).waitFor();
    await page.getByRole('link', { name: 'Sign in again' }).click();
    await page.getByRole('heading', { name: 'Sign in to Evalon reviews' }).waitFor();
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();
    // Signing out forgets the cookie: the page asks again.
    await page.goto(`${collector.apiUrl}/ui/session`);
    await page.getByText('You are signed out.').waitFor();
    expect(await context.cookies()).toEqual([]);
    expect((await page.goto(`${collector.apiUrl}/ui/`))?.status()).toBe(401);
    expect(failures).toEqual([]);
    await context.close();
  }, 90_000);

  it('opens a link from another site in a signed-in browser without asking again', async (ctx) => {
    const chromium = needBrowser(ctx);
    const collector = await startTestCollector({
      yaml: (dir) =>
        testConfigYaml(dir).replace(
          'api: { endpoint: 127.0.0.1:0 }',
          `api: { endpoint: 127.0.0.1:0, auth: { bearer_token: ${TOKEN} } }`,
        ),
    });
    collectors.push(collector);
    const context = await chromium.newContext();
    const page = await context.newPage();
    const documents: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'document') documents.push(new URL(request.url()).pathname);
    });
    // localhost is another site than 127.0.0.1: a link from there is a cross-site navigation, which the
    // browser makes without the SameSite=Strict cookie.
    const followLinkFromElsewhere = async () => {
      await page.goto(`${collector.apiUrl.replace('127.0.0.1', 'localhost')}/healthz`);
      await page.evaluate(`(() => {
        const link = document.createElement('a');
        link.href = ${JSON.stringify(`${collector.apiUrl}/ui/#/interactions`)};
        link.textContent = 'the interactions';
        document.body.append(link);
      })()`);
      documents.length = 0;
      await page.getByRole('link', { name: 'the interactions' }).click();
    };

    // Not signed in: the sign-in page, after one more look from this origin (no loop).
    await followLinkFromElsewhere();
    // The address opened again from here: the same view, one `?` more.
    await page.waitForURL(`${collector.apiUrl}/ui/?#/interactions`);
    await page.getByRole('heading', { name: 'Sign in to Evalon reviews' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(documents).toEqual(['/ui/', '/ui/']);
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();

    // Signed in: the view the link names, no second asking.
    await followLinkFromElsewhere();
    await page.waitForURL(`${collector.apiUrl}/ui/?#/interactions`);
    await page.getByRole('heading', { name: 'Interactions' }).waitFor();
    await context.close();
  }, 90_000);
});
