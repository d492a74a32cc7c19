/**
 * The judge model client through the real Anthropic SDK against the scripted model: settings from
 * the environment, retries with backoff on 429/5xx/529 honouring retry-after, clear errors, usage.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  backoffMs,
  createAnthropicModelClient,
  ModelCallError,
  type RetryInfo,
} from '../../../src/judge/anthropic-model-client.ts';
import { addExtraCaCertificates, DEFAULT_MODEL } from '../../../src/judge/model-settings.ts';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing/scripted-model.ts';

let scripted: ScriptedModel;
beforeAll(async () => {
  scripted = await createScriptedModel();
});
afterAll(() => scripted.close());
beforeEach(() => scripted.reset());

const hello = { max_tokens: 10, messages: [{ role: 'user' as const, content: 'hello' }] };

function client(extra: Parameters<typeof createAnthropicModelClient>[0] = {}) {
  const retries: RetryInfo[] = [];
  const model = createAnthropicModelClient({
    env: { ANTHROPIC_BASE_URL: `${scripted.baseURL}/bedrock`, ANTHROPIC_API_KEY: 'test-key' },
    retryBaseMs: 2,
    onRetry: (info) => retries.push(info),
    ...extra,
  });
  return { model, retries };
}

describe('judge model client', () => {
  it(
    'strips /bedrock from ANTHROPIC_BASE_URL, sends the key, uses EVALON_MODEL (else the default) and reports ' +
      'usage per call',
    async () => {
      scripted.fixedResponse({ text: 'hi', usage: { input_tokens: 12, output_tokens: 3 } });
      const withModel = createAnthropicModelClient({
        env: {
          ANTHROPIC_BASE_URL: `${scripted.baseURL}/bedrock/`,
          ANTHROPIC_API_KEY: 'k-1',
          EVALON_MODEL: 'claude-env',
        },
      });
      const response = await withModel.createMessage(hello);
      expect(response.usage).toEqual({ input_tokens: 12, output_tokens: 3 });
      expect(scripted.requests[0].body.model).toBe('claude-env');
      expect(JSON.stringify(scripted.requests[0].headers)).toContain('k-1');
      const fallback = createAnthropicModelClient({ env: { ANTHROPIC_BASE_URL: scripted.baseURL } });
      expect(fallback.defaultModel).toBe(DEFAULT_MODEL);
      await fallback.createMessage({ ...hello, model: 'claude-request' });
      expect(scripted.requests[1].body.model).toBe('claude-request');
    },
  );

  it(
    'tells a per-call onRetry about each retried attempt, ' + 'and names the error type when the retries run out',
    async () => {
      scripted.enqueue({ errorStatus: 529 }, { errorStatus: 429 });
      const { model } = client({ maxRetries: 1 });
      const seen: Array<{ attempt: number; status?: number; errorType: string }> = [];
      const failure = await model
        .createMessage(hello, {
          onRetry: ({ attempt, status, errorType }) =>
            seen.push({ attempt, ...(status !== undefined ? { status } : {}), errorType }),
        })
        .catch((error: unknown) => error);
      expect(seen).toEqual([{ attempt: 1, status: 529, errorType: 'overloaded_error' }]);
      expect(failure).toBeInstanceOf(ModelCallError);
      expect((failure as ModelCallError).errorType).toBe('rate_limit_error');
    },
  );

  it('retries a 529 with backoff from the injected base, then succeeds', async () => {
    scripted.enqueue({ errorStatus: 529 }, { errorStatus: 529 }, 'ok');
    const { model, retries } = client();
    const started = Date.now();
    expect((await model.createMessage(hello)).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(scripted.requests).toHaveLength(3);
    expect(retries.map((r) => [r.attempt, r.status])).toEqual([
      [1, 529],
      [2, 529],
    ]);
    expect(retries[0].delayMs).toBeLessThanOrEqual(2);
    expect(retries[1].delayMs).toBeGreaterThan(2.9); // 2·2 minus at most 25% jitter
    expect(retries[1].delayMs).toBeLessThanOrEqual(4);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('retries 429 and 500, honouring retry-after', async () => {
    scripted.enqueue({ errorStatus: 429, retryAfter: 0.05 }, { errorStatus: 500 }, 'ok');
    const { model, retries } = client();
    await model.createMessage(hello);
    expect(retries.map((r) => [r.status, r.delayMs <= 4 ? 'backoff' : r.delayMs])).toEqual([
      [429, 50],
      [500, 'backoff'],
    ]);
  });

  it('gives up after maxRetries with a clear error naming the status', async () => {
    scripted.fixedResponse({ errorStatus: 529 });
    const { model } = client({ maxRetries: 2 });
    const error = await model.createMessage(hello).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ status: 529, attempts: 3, retryable: true });
    expect((error as Error).message).toMatch(
      /^model call to claude-sonnet-4-6 failed after 3 attempt\(s\): 529 overloaded_error: scripted 529$/,
    );
    expect(scripted.requests).toHaveLength(3);
  });

  it('does not retry a 400, and says so', async () => {
    scripted.fixedResponse({ errorStatus: 400 });
    const { model, retries } = client();
    const error = (await model.createMessage(hello).catch((e: unknown) => e)) as ModelCallError;
    expect(error.message).toMatch(/failed: 400 invalid_request_error: scripted 400 \(not retried\)/);
    expect(error.status).toBe(400);
    expect(retries).toEqual([]);
    expect(scripted.requests).toHaveLength(1);
  });

  it('does not wait for a retry-after longer than maxRetryAfterMs', async () => {
    scripted.fixedResponse({ errorStatus: 429, retryAfter: 120 });
    const { model } = client();
    const error = (await model.createMessage(hello).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/asked to retry after 120 s, longer than 60 s: 429/);
    expect(scripted.requests).toHaveLength(1);
  });

  it('retries a 200 with a malformed body', async () => {
    scripted.enqueue({ malformed: true }, 'ok');
    const { model } = client();
    expect((await model.createMessage(hello)).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(scripted.requests).toHaveLength(2);
  });

  it('stops waiting between retries when the signal aborts', async () => {
    scripted.fixedResponse({ errorStatus: 503 });
    const { model } = client({ retryBaseMs: 10_000 });
    const controller = new AbortController();
    const pending = model.createMessage(hello, { signal: controller.signal }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort(new Error('evaluation timed out'));
    expect(((await pending) as Error).message).toBe('evaluation timed out');
    expect(scripted.requests).toHaveLength(1);
  });

  it('backs off exponentially up to the maximum', () => {
    expect(backoffMs(1, 500, 8000)).toBeGreaterThanOrEqual(375);
    expect(backoffMs(3, 500, 8000)).toBeLessThanOrEqual(2000);
    expect(backoffMs(10, 500, 8000)).toBeLessThanOrEqual(8000);
    expect(backoffMs(10, 500, 8000)).toBeGreaterThanOrEqual(6000);
  });

  it('adds an EVALON_CA_CERTS bundle to the default trust, keeping the defaults', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalon-ca-'));
    try {
      const pem = join(dir, 'ca.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          pem,
          '-days',
          '1',
          '-subj',
          '/CN=evalon-test-ca',
        ],
        { stdio: 'ignore' },
      );
      // Fingerprints: the same certificate may appear twice in the defaults (bundled and NODE_EXTRA_CA_CERTS).
      const trusted = () =>
        new Set(tls.getCACertificates('default').map((pemText) => new X509Certificate(pemText).fingerprint256));
      const before = trusted();
      const added = new X509Certificate(readFileSync(pem)).fingerprint256;
      expect(before.has(added)).toBe(false);
      createAnthropicModelClient({ env: { ANTHROPIC_BASE_URL: scripted.baseURL, EVALON_CA_CERTS: pem } });
      const after = trusted();
      expect([...before].every((fingerprint) => after.has(fingerprint))).toBe(true);
      expect(after.has(added)).toBe(true);
      expect(after.size).toBe(before.size + 1);
      expect(addExtraCaCertificates(pem)).toBe(true); // once per path
      expect(trusted().size).toBe(before.size + 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
