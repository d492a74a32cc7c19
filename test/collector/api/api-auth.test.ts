/**
 * `extensions.api.auth.bearer_token`: every path but the health checks answers 401
 * (`WWW-Authenticate: Bearer`) without the token or with another, routes and unknown paths alike —
 * in JSON, or for the review page under `/ui/` with its sign-in page — and answers as usual with
 * it; `/healthz` and `/readyz` stay open for probes. Signing in and the session cookie:
 * ui-session.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, type ApiServer } from '../../../collector/api/api-server.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { makeRecord } from '../../helpers/ledger-fixtures.ts';

const TOKEN = 'api-token-7f3a9c';

describe('the API with a bearer token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-api-auth-'));
  let store: SqliteLedgerStore;
  let server: ApiServer;
  let base: string;
  let record: InteractionRecord;

  beforeAll(async () => {
    store = createSqliteStore({ path: join(dir, 'ledger.db') });
    record = makeRecord({ agentId: 'support-agent', endTime: new Date().toISOString() });
    await store.putInteractions([record]);
    server = createApiServer({
      host: '127.0.0.1',
      port: 0,
      store,
      ready: () => true,
      stats: () => ({ spansReceived: 3 }),
      bearerToken: TOKEN,
    });
    await server.start();
    base = `http://127.0.0.1:${server.address().port}`;
  });
  afterAll(async () => {
    await server.shutdown();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string, authorization?: string) =>
    fetch(base + path, authorization === undefined ? {} : { headers: { authorization } });

  const protectedPaths = [
    '/api/v1/interactions',
    '/api/v1/interactions?agent=support-agent',
    '/api/v1/stats',
    '/api/v1/no-such-route',
    '/api/v1/reviews',
    '/api/v1/agreement',
  ];

  it.each(protectedPaths)('answers %s 401 without the token, with a JSON error and WWW-Authenticate', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      error: 'missing or wrong bearer token (send Authorization: Bearer <token>)',
    });
  });

  it.each([
    ['another token', 'Bearer api-token-7f3a9d'],
    ['a prefix of the token', 'Bearer api-token'],
    ['the token with another scheme', `Basic ${TOKEN}`],
    ['the token alone', TOKEN],
    ['an empty bearer', 'Bearer '],
  ])('answers 401 to %s', async (_what, authorization) => {
    expect((await get('/api/v1/interactions', authorization)).status).toBe(401);
  });

  it.each(['/ui/', '/ui', '/ui/index.html', '/ui/app.js', '/ui/style.css', '/ui/no-such-file'])(
    'answers %s 401 without the token, with the sign-in page in place of the review page',
    async (path) => {
      const response = await get(path);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
      const page = await response.text();
      expect(page).toContain('<form method="post" action="/ui/session">');
      expect(page).not.toContain('<script');
      expect(page).not.toContain('<main id="main"');
    },
  );

  it('answers the review page 401 with a wrong token too', async () => {
    expect((await get('/ui/', 'Bearer api-token-7f3a9d')).status).toBe(401);
    expect((await get('/ui/app.js', `Basic ${TOKEN}`)).status).toBe(401);
  });

  it('answers with the token as without auth: the ledger, the counters and the review page', async () => {
    const list = await get('/api/v1/interactions', `Bearer ${TOKEN}`);
    expect(list.status).toBe(200);
    expect(
      ((await list.json()) as { interactions: InteractionRecord[] }).interactions.map((r) => r.interactionId),
    ).toEqual([record.interactionId]);
    const one = await get(`/api/v1/interactions/${record.interactionId}`, `bearer ${TOKEN}`);
    expect(one.status).toBe(200);
    expect(await get('/api/v1/stats', `Bearer ${TOKEN}`).then((r) => r.json())).toEqual({ spansReceived: 3 });
    const ui = await get('/ui/', `Bearer ${TOKEN}`);
    expect(ui.status).toBe(200);
    expect(ui.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await ui.text()).toContain('<main id="main"');
    expect((await get('/api/v1/no-such-route', `Bearer ${TOKEN}`)).status).toBe(404);
  });

  it('leaves /healthz and /readyz open', async () => {
    for (const path of ['/healthz', '/readyz', '/healthz/']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
    }
  });
});
