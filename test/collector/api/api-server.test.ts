import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, type ApiServer, type Readiness } from '../../../collector/api/api-server.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { makeRecord } from '../../helpers/ledger-fixtures.ts';

const NOW = Date.parse('2025-06-02T12:00:00.000Z');
const hoursAgo = (h: number) => new Date(NOW - h * 3_600_000).toISOString();

describe('API server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-api-'));
  let store: SqliteLedgerStore;
  let server: ApiServer;
  let base: string;
  let readiness: Readiness = true;
  let records: InteractionRecord[];

  beforeAll(async () => {
    store = createSqliteStore({ path: join(dir, 'ledger.db') });
    records = [
      makeRecord({ endTime: hoursAgo(48), agentId: 'travel-agent', conversationId: 'conv-1' }),
      makeRecord({
        endTime: hoursAgo(3),
        agentId: 'refund-agent',
        conversationId: 'conv-1',
        failed: true,
        failureSummary: 'TimeoutError',
      }),
      makeRecord({ endTime: hoursAgo(1), agentId: 'travel-agent', conversationId: 'conv-2' }),
    ];
    await store.putInteractions(records);
    server = createApiServer({ host: '127.0.0.1', port: 0, store, ready: () => readiness, now: () => NOW });
    await server.start();
    base = `http://127.0.0.1:${server.address().port}`;
  });
  afterAll(async () => {
    await server.shutdown();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // biome-ignore lint/suspicious/noExplicitAny: assertions read the JSON bodies field by field
  async function get(path: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }> {
    const response = await fetch(base + path, init);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    return { status: response.status, body: await response.json(), headers: response.headers };
  }
  const ids = (list: InteractionRecord[]) => list.map((r) => r.interactionId);

  it('answers /healthz', async () => {
    expect(await get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('answers /readyz with 200 when ready and 503 with the reason when not', async () => {
    readiness = true;
    expect(await get('/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
    readiness = { ready: false, reason: 'replaying 12 pending traces' };
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      body: { status: 'not ready', reason: 'replaying 12 pending traces' },
    });
    readiness = false;
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      body: { status: 'not ready', reason: 'the collector is not ready' },
    });
    readiness = { ready: true };
    expect((await get('/readyz')).status).toBe(200);
  });

  it('lists interactions newest first, with the record JSON names exactly', async () => {
    const { status, body } = await get('/api/v1/interactions');
    expect(status).toBe(200);
    expect(body).toEqual({ interactions: [records[2], records[1], records[0]] });
    expect(Object.keys(body.interactions[0]).sort()).toEqual(Object.keys(records[2]).sort());
  });

  it('filters by agent, conversation, since (ISO or relative) and limit', async () => {
    expect(ids((await get('/api/v1/interactions?agent=travel-agent')).body.interactions)).toEqual(
      ids([records[2], records[0]]),
    );
    expect(ids((await get('/api/v1/interactions?conversation=conv-1')).body.interactions)).toEqual(
      ids([records[1], records[0]]),
    );
    expect(ids((await get('/api/v1/interactions?agent=refund-agent&conversation=conv-1')).body.interactions)).toEqual(
      ids([records[1]]),
    );
    expect(ids((await get('/api/v1/interactions?since=24h')).body.interactions)).toEqual(ids([records[2], records[1]]));
    expect(ids((await get('/api/v1/interactions?since=90m')).body.interactions)).toEqual(ids([records[2]]));
    expect(ids((await get(`/api/v1/interactions?since=${encodeURIComponent(hoursAgo(3))}`)).body.interactions)).toEqual(
      ids([records[2], records[1]]),
    );
    expect(ids((await get('/api/v1/interactions?limit=1')).body.interactions)).toEqual(ids([records[2]]));
    expect(ids((await get('/api/v1/interactions?agent=&conversation=&since=&limit=')).body.interactions)).toHaveLength(
      3,
    );
    expect((await get('/api/v1/interactions?agent=nobody')).body).toEqual({ interactions: [] });
  });

  it('answers 400 naming the parameter for a bad limit, since, unknown or repeated parameter', async () => {
    for (const [query, parameter] of [
      ['limit=abc', 'limit'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=-5', 'limit'],
      ['since=yesterday', 'since'],
      ['since=24x', 'since'],
      ['agentId=x', 'agentId'],
      ['agent=a&agent=b', 'agent'],
    ]) {
      const { status, body } = await get(`/api/v1/interactions?${query}`);
      expect(status, query).toBe(400);
      expect(body.parameter, query).toBe(parameter);
      expect(body.error, query).toContain(parameter);
    }
    expect((await get('/api/v1/interactions?limit=abc')).body.error).toBe(
      'limit must be an integer from 1 to 1000 (got "abc")',
    );
  });

  it('returns one interaction by id, and 404 with a JSON error when unknown', async () => {
    expect(await get(`/api/v1/interactions/${records[1].interactionId}`)).toMatchObject({
      status: 200,
      body: records[1],
    });
    expect(await get(`/api/v1/interactions/${records[1].interactionId}/`)).toMatchObject({
      status: 200,
      body: records[1],
    });
    const unknown = `${'0'.repeat(32)}-${'0'.repeat(16)}`;
    expect(await get(`/api/v1/interactions/${unknown}`)).toMatchObject({
      status: 404,
      body: { error: `interaction ${unknown} not found` },
    });
    expect(await get('/api/v1/interactions/%E0%A4%A')).toMatchObject({ status: 400 });
  });

  it('answers 404 JSON for unknown routes and 405 for other methods', async () => {
    expect(await get('/nope')).toMatchObject({ status: 404, body: { error: 'no route for GET /nope' } });
    expect(await get('/api/v1/interactions/a/b')).toMatchObject({ status: 404 });
    const post = await get('/api/v1/interactions', { method: 'POST', body: '{}' });
    expect(post).toMatchObject({
      status: 405,
      body: { error: 'method POST is not allowed on /api/v1/interactions (allowed: GET, HEAD)' },
    });
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await get('/healthz', { method: 'DELETE' })).status).toBe(405);
    const head = await fetch(`${base}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('answers 500 with a JSON error when the store fails, and keeps serving', async () => {
    const failing = createApiServer({
      host: '127.0.0.1',
      port: 0,
      store: { ...store, getInteraction: async () => Promise.reject(new Error('disk I/O error')) },
      ready: () => true,
    });
    await failing.start();
    try {
      const response = await fetch(`http://127.0.0.1:${failing.address().port}/api/v1/interactions/x`);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: 'internal error: disk I/O error' });
      expect((await fetch(`http://127.0.0.1:${failing.address().port}/healthz`)).status).toBe(200);
    } finally {
      await failing.shutdown();
    }
  });

  it('shuts down safely without start and twice, closing keep-alive connections', async () => {
    const idle = createApiServer({ host: '127.0.0.1', port: 0, store, ready: () => true });
    await idle.shutdown();
    await idle.shutdown();
    const other = createApiServer({ host: '127.0.0.1', port: 0, store, ready: () => true });
    await other.start();
    const { port } = other.address();
    expect(port).toBeGreaterThan(0);
    // A raw keep-alive request leaves an open connection behind; shutdown must not wait for it.
    await new Promise<void>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/healthz', agent: new Agent({ keepAlive: true }) }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end();
    });
    await other.shutdown();
    await other.shutdown();
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('reports a port already in use when starting', async () => {
    const clash = createApiServer({ host: '127.0.0.1', port: server.address().port, store, ready: () => true });
    await expect(clash.start()).rejects.toThrow(/EADDRINUSE/);
    await clash.shutdown();
  });
});

describe('interactions query parameters', () => {
  it('reads since as a duration back from now, alone and combined, or an ISO-8601 time, and nothing else', async () => {
    const { resolveSince } = await import('../../../collector/api/interactions-query.ts');
    const ago = (ms: number) => new Date(NOW - ms).toISOString();
    expect(resolveSince('30m', NOW)).toBe(ago(1_800_000));
    expect(resolveSince('1h30m', NOW)).toBe(ago(5_400_000));
    expect(resolveSince('7d', NOW)).toBe(ago(604_800_000));
    expect(resolveSince('1w', NOW)).toBe(ago(604_800_000));
    expect(resolveSince('250ms', NOW)).toBe(ago(250));
    // Evalon's one duration grammar (src/config/duration.ts) takes fractions; a bare number is no since.
    expect(resolveSince('1.5h', NOW)).toBe(ago(5_400_000));
    for (const bad of ['', '24', 'h', '24 h', '-1h', '1y']) expect(resolveSince(bad, NOW), bad).toBeUndefined();
    expect(resolveSince('24h', NOW)).toBe(hoursAgo(24));
    expect(resolveSince('2025-06-01T14:00:00+02:00', NOW)).toBe('2025-06-01T12:00:00.000Z');
    expect(resolveSince('2025-06-01', NOW)).toBe('2025-06-01T00:00:00.000Z');
    expect(resolveSince('June 1st', NOW)).toBeUndefined();
  });
});
