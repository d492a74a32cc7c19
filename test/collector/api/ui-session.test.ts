/**
 * The review page's sign-in with `extensions.api.auth.bearer_token`: `POST /ui/session` with the
 * right token answers 303 to `/ui/` with a session cookie (HttpOnly, SameSite=Strict, Path=/, no
 * lifetime, Secure over TLS, not the token), which then opens `/ui/` and `/api/*` like the token;
 * a wrong token is 401 with the sign-in page; `GET /ui/session` signs out. The cookie is the same
 * on every server sharing the token and refused by one with another token. A POST carried by the
 * cookie alone must be JSON (415), and the review routes that read JSON refuse anything else
 * whatever the credentials. A navigation from another site gets a sign-in page that opens the
 * address again from this origin. The page in a browser: ui/review-page.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, type ApiServer, type ApiServerOptions } from '../../../collector/api/api-server.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import { createTestCertificates, type TestCertificates } from '../../helpers/certificates.ts';
import { makeRecord } from '../../helpers/ledger-fixtures.ts';

const TOKEN = 'page-session-token-93be';
const COOKIE = /^evalon_session=([A-Za-z0-9_-]{43}); Path=\/; HttpOnly; SameSite=Strict$/;

const dir = mkdtempSync(join(tmpdir(), 'evalon-ui-session-'));
let store: SqliteLedgerStore;
const servers: ApiServer[] = [];

async function startServer(options: Partial<ApiServerOptions> = {}): Promise<string> {
  const server = createApiServer({
    host: '127.0.0.1',
    port: 0,
    store,
    ready: () => true,
    stats: () => ({ spansReceived: 1 }),
    ...options,
  });
  servers.push(server);
  await server.start();
  return `${options.tls ? 'https' : 'http'}://127.0.0.1:${server.address().port}`;
}

beforeAll(async () => {
  store = createSqliteStore({ path: join(dir, 'ledger.db') });
  await store.putInteractions([makeRecord({ agentId: 'support-agent', endTime: new Date().toISOString() })]);
});
afterAll(async () => {
  for (const server of servers) await server.shutdown();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const signIn = (base: string, body: string) =>
  fetch(`${base}/ui/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
    redirect: 'manual',
  });

/** Signs in with the token; the `name=value` to send back as Cookie. */
async function sessionCookie(base: string): Promise<string> {
  const response = await signIn(base, new URLSearchParams({ token: TOKEN }).toString());
  expect(response.status).toBe(303);
  return response.headers.getSetCookie()[0]!.split(';')[0]!;
}

describe('signing in to the review page', () => {
  let base: string;
  beforeAll(async () => {
    base = await startServer({ bearerToken: TOKEN });
  });
  const get = (path: string, cookie?: string) => fetch(base + path, cookie ? { headers: { cookie } } : {});

  it('answers the right token 303 to /ui/ with a session cookie for the browser session, not the token', async () => {
    const response = await signIn(base, `token=${encodeURIComponent(TOKEN)}%0A`);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/ui/');
    const cookies = response.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    // No Max-Age or Expires: it ends with the browser session. No Secure over plain HTTP.
    const [, value] = COOKIE.exec(cookies[0]!) ?? [];
    expect(value).toBeDefined();
    expect(value).not.toContain(TOKEN);
    expect(Buffer.from(value!, 'base64url').toString('latin1')).not.toContain(TOKEN);
  });

  it('opens /ui/ and /api/* with the cookie as with the token', async () => {
    const cookie = await sessionCookie(base);
    const page = await get('/ui/', cookie);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<main id="main"');
    expect((await get('/ui/app.js', cookie)).status).toBe(200);
    const list = await get('/api/v1/interactions', cookie);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { interactions: unknown[] }).interactions).toHaveLength(1);
    expect(await get('/api/v1/stats', cookie).then((r) => r.json())).toEqual({ spansReceived: 1 });
    expect((await get('/api/v1/reviews', `other=1; ${cookie}`)).status).toBe(200);
  });

  it.each([
    ['a wrong token', `token=${TOKEN}x`],
    ['a prefix of the token', 'token=page-session'],
    ['an empty token', 'token='],
    ['no token field', 'password=page-session-token-93be'],
    ['the token as JSON', JSON.stringify({ token: TOKEN })],
  ])('answers %s 401 with the sign-in page saying it was refused, and no cookie', async (_what, body) => {
    const response = await signIn(base, body);
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.getSetCookie()).toEqual([]);
    const page = await response.text();
    expect(page).toContain('The collector refused that token.');
    expect(page).not.toContain(TOKEN);
  });

  it('refuses cookies that are not the session: 401 on /ui/ (sign-in page) and /api/* (JSON)', async () => {
    const [name, value] = (await sessionCookie(base)).split('=') as [string, string];
    for (const cookie of [`${name}=${TOKEN}`, `${name}=${value.slice(0, -1)}A`, `${name}=`, `other=${value}`]) {
      const page = await get('/ui/', cookie);
      expect(page.status, cookie).toBe(401);
      expect(await page.text()).toContain('action="/ui/session"');
      expect((await get('/api/v1/interactions', cookie)).status, cookie).toBe(401);
    }
  });

  it('serves a sign-in page that loads nothing and posts only to its own origin', async () => {
    const response = await get('/ui/');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action 'self'/);
    expect(csp).toContain("frame-ancestors 'none'");
    const page = await response.text();
    expect(page).toContain('<label for="token">API token</label>');
    expect(page).toMatch(/<input id="token" name="token" type="password"/);
    expect(page).not.toMatch(/<script|<link|src=|https?:\/\//);
  });

  it('answers a navigation from another site with a sign-in page that opens the address again', async () => {
    // The browser sends no SameSite=Strict cookie with it: a signed-in browser gets through on the second look.
    // node:http, not fetch: fetch sets Sec-Fetch-Mode itself.
    const navigate = (site: string, path = '/ui/') =>
      new Promise<Response>((resolve, reject) => {
        const headers = { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' };
        httpGet(base + path, { headers }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () =>
            resolve(
              new Response(body, {
                status: response.statusCode!,
                headers: Object.entries(response.headers).map(([name, value]) => [name, String(value)]),
              }),
            ),
          );
        }).on('error', reject);
      });
    const away = await navigate('cross-site');
    expect(away.status).toBe(401);
    expect(away.headers.get('content-security-policy')).toMatch(/; script-src 'sha256-[A-Za-z0-9+/]+=*';/);
    const page = await away.text();
    expect(page).toContain('<script>location.replace(');
    expect(page).toContain('action="/ui/session"');
    for (const site of ['same-origin', 'same-site', 'none']) {
      const here = await navigate(site);
      expect(here.headers.get('content-security-policy'), site).not.toContain('script-src');
      expect(await here.text(), site).not.toContain('<script');
    }
    expect((await navigate('cross-site', '/api/v1/interactions')).headers.get('content-type')).toContain('json');
  });

  it('signs out at GET /ui/session: the cookie is cleared, the sign-in page shown', async () => {
    const response = await get('/ui/session', await sessionCookie(base));
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual(['evalon_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0']);
    expect(await response.text()).toContain('You are signed out.');
  });

  it('takes POSTs carried by the cookie only as JSON (415 otherwise), the token’s whatever they carry', async () => {
    const cookie = await sessionCookie(base);
    const post = (path: string, headers: Record<string, string>, body = '{}') =>
      fetch(base + path, { method: 'POST', headers, body });
    for (const contentType of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const end = await post('/api/v1/conversations/no-such-conversation/end', { cookie, 'content-type': contentType });
      expect(end.status, contentType).toBe(415);
      expect(await end.json()).toMatchObject({ field: 'content-type' });
      expect((await post('/api/v1/reviews/r-1/claim', { cookie, 'content-type': contentType })).status).toBe(415);
    }
    // JSON gets through the gate, to the route (an unknown conversation, an unknown review).
    const json = { cookie, 'content-type': 'application/json; charset=utf-8' };
    expect((await post('/api/v1/conversations/no-such-conversation/end', json)).status).toBe(404);
    expect((await post('/api/v1/reviews/r-1/claim', json, '{"reviewer":"ana"}')).status).toBe(404);
    // The token is no cookie (no browser sends it on its own): where no body is read, any Content-Type.
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await post('/api/v1/conversations/no-such-conversation/end', bearer, '')).status).toBe(404);
  });

  it('keeps /healthz and /readyz open', async () => {
    for (const path of ['/healthz', '/readyz']) expect((await get(path)).status, path).toBe(200);
  });
});

describe('the session cookie across servers', () => {
  it('is the same on every server sharing the token (replicas, restarts), refused where it differs', async () => {
    const one = await startServer({ bearerToken: TOKEN });
    const other = await startServer({ bearerToken: TOKEN });
    const changed = await startServer({ bearerToken: `${TOKEN}-rotated` });
    const cookie = await sessionCookie(one);
    expect(await sessionCookie(other)).toBe(cookie);
    expect((await fetch(`${other}/api/v1/interactions`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${changed}/api/v1/interactions`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${changed}/ui/`, { headers: { cookie } })).status).toBe(401);
  });
});

describe('the review routes that read JSON', () => {
  it.each<[string, { bearerToken?: string }]>([
    ['without auth', {}],
    ['with the token', { bearerToken: TOKEN }],
  ])('refuse other content types with 415 (%s)', async (_what, auth) => {
    const base = await startServer(auth);
    const headers = (contentType?: string): Record<string, string> => ({
      ...(auth.bearerToken ? { authorization: `Bearer ${TOKEN}` } : {}),
      ...(contentType ? { 'content-type': contentType } : {}),
    });
    const verdict = JSON.stringify({ passed: true, explanation: 'fine', reviewer: 'ana' });
    for (const path of ['/api/v1/reviews/r-1', '/api/v1/reviews/r-1/claim']) {
      for (const contentType of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
        const response = await fetch(base + path, { method: 'POST', headers: headers(contentType), body: verdict });
        expect(response.status, `${path} ${contentType}`).toBe(415);
        expect(await response.json()).toEqual({
          error: 'the request body must be JSON: send Content-Type: application/json',
          field: 'content-type',
        });
      }
      const json = await fetch(base + path, { method: 'POST', headers: headers('Application/JSON'), body: verdict });
      expect(json.status, path).toBe(404);
    }
  });
});

describe('without a token', () => {
  it('serves the page as before and has no sign-in', async () => {
    const base = await startServer();
    expect((await fetch(`${base}/ui/`)).status).toBe(200);
    const response = await signIn(base, `token=${TOKEN}`);
    expect(response.status).toBe(405);
    expect(response.headers.getSetCookie()).toEqual([]);
  });
});

describe('over TLS', () => {
  let certs: TestCertificates;
  beforeAll(() => {
    certs = createTestCertificates();
  });
  afterAll(() => certs.remove());

  it('marks the session cookie Secure', async () => {
    const base = await startServer({
      bearerToken: TOKEN,
      tls: { cert: certs.server.cert, key: certs.server.key, requestCert: false, rejectUnauthorized: false },
    });
    const setCookie = await new Promise<string[]>((resolve, reject) => {
      const body = `token=${TOKEN}`;
      request(
        `${base}/ui/session`,
        {
          method: 'POST',
          ca: certs.ca.cert,
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length },
        },
        (response) => {
          response.resume();
          expect(response.statusCode).toBe(303);
          resolve(response.headers['set-cookie'] ?? []);
        },
      )
        .on('error', reject)
        .end(body);
    });
    expect(setCookie).toEqual([
      expect.stringMatching(/^evalon_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/),
    ]);
  });
});
