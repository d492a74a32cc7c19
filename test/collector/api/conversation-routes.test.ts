/**
 * The conversation routes of the API, over a real SQLite ledger and a real HTTP client: the list
 * and its filters, one conversation (the agent named, or unambiguous, else 409 listing the
 * agents; 404 when unknown), every revision's evaluations, and `POST …/end` (202, due after the
 * grace; 404 unknown; 409 ambiguous).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, type ApiServer } from '../../../collector/api/api-server.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import { EVALON_CONVERSATION_ENDED } from '../../../src/model/attributes.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { makeRecord } from '../../helpers/ledger-fixtures.ts';

const NOW = Date.parse('2026-03-02T12:00:00.000Z');
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();
const GRACE_MS = 1_500;

describe('API conversation routes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-api-conversations-'));
  let store: SqliteLedgerStore;
  let server: ApiServer;
  let base: string;
  let support: InteractionRecord[];

  const turn = (conversationId: string, agentId: string, minutes: number, extra: Partial<InteractionRecord> = {}) =>
    makeRecord({ conversationId, agentId, startTime: minutesAgo(minutes + 1), endTime: minutesAgo(minutes), ...extra });

  beforeAll(async () => {
    store = createSqliteStore({ path: join(dir, 'ledger.db') });
    support = [turn('conv-1', 'support-agent', 30), turn('conv-1', 'support-agent', 20)];
    await store.putInteractions([
      ...support,
      // conv-2 has two agents; conv-3 is over.
      turn('conv-2', 'support-agent', 10),
      turn('conv-2', 'billing-agent', 9),
      turn('conv-3', 'support-agent', 50, { attributes: { [EVALON_CONVERSATION_ENDED]: true } }),
    ]);
    await store.closeConversations(
      await store.findDueConversations({ now: minutesAgo(40), idleMs: 3_600_000, limit: 10 }),
    );
    server = createApiServer({
      host: '127.0.0.1',
      port: 0,
      store,
      ready: () => true,
      now: () => NOW,
      conversationEndGraceMs: GRACE_MS,
    });
    await server.start();
    base = `http://127.0.0.1:${server.address().port}`;
  });
  afterAll(async () => {
    await server.shutdown();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // biome-ignore lint/suspicious/noExplicitAny: assertions read the JSON bodies field by field
  async function call(path: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }> {
    const response = await fetch(base + path, init);
    return { status: response.status, body: await response.json(), headers: response.headers };
  }
  const keys = (body: { conversations: { conversationId: string; agentId: string }[] }) =>
    body.conversations.map((c) => `${c.conversationId}/${c.agentId}`);

  it('lists conversations most recently active first, with filters and the interaction list grammar', async () => {
    expect(keys((await call('/api/v1/conversations')).body)).toEqual([
      'conv-2/billing-agent',
      'conv-2/support-agent',
      'conv-1/support-agent',
      'conv-3/support-agent',
    ]);
    expect(keys((await call('/api/v1/conversations?agent=support-agent&open=true&limit=1')).body)).toEqual([
      'conv-2/support-agent',
    ]);
    expect(keys((await call('/api/v1/conversations?open=false')).body)).toEqual(['conv-3/support-agent']);
    expect(keys((await call('/api/v1/conversations?since=15m&agent=')).body)).toEqual([
      'conv-2/billing-agent',
      'conv-2/support-agent',
    ]);
    expect(await call('/api/v1/conversations?open=yes')).toMatchObject({
      status: 400,
      body: { error: 'open must be true or false (got "yes")', parameter: 'open' },
    });
    expect((await call('/api/v1/conversations?conversation=x')).status).toBe(400);
  });

  it('shows one conversation with its interactions; the agent may be left out when it is the only one', async () => {
    const { status, body } = await call('/api/v1/conversations/conv-1');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      conversationId: 'conv-1',
      agentId: 'support-agent',
      revision: 1,
      open: true,
      turns: 2,
      interactionIds: support.map((r) => r.interactionId),
    });
    expect(body.interactions).toEqual(support);
    expect((await call('/api/v1/conversations/conv-2?agent=billing-agent')).body.agentId).toBe('billing-agent');
  });

  it('answers 409 listing the agents when the id is ambiguous, and 404 when unknown', async () => {
    for (const path of ['/api/v1/conversations/conv-2', '/api/v1/conversations/conv-2/evaluations']) {
      expect(await call(path)).toMatchObject({
        status: 409,
        body: {
          error: 'conversation conv-2 has several agents: billing-agent, support-agent (name one with ?agent=ID)',
          agents: ['billing-agent', 'support-agent'],
        },
      });
    }
    expect(await call('/api/v1/conversations/nope')).toMatchObject({
      status: 404,
      body: { error: 'conversation nope not found' },
    });
    expect(await call('/api/v1/conversations/conv-1?agent=billing-agent')).toMatchObject({
      status: 404,
      body: { error: 'conversation conv-1 of agent billing-agent not found' },
    });
  });

  it('lists the evaluations of every revision of a conversation', async () => {
    expect((await call('/api/v1/conversations/conv-3/evaluations')).body).toEqual({ evaluations: [] });
    const [revision] = await store.listConversationRevisions('conv-3', 'support-agent');
    const record = {
      evaluationId: 'e-conv-3',
      interactionId: revision.lastInteractionId,
      evaluatorId: 'llm-judge',
      evaluatorVersion: '1',
      agentId: 'support-agent',
      outcome: { type: 'verdict' as const, evaluation: { passed: true, explanation: 'solved', attributes: {} } },
      triggeredAt: minutesAgo(40),
      startedAt: minutesAgo(40),
      completedAt: minutesAgo(39),
      attempts: 1,
      subject: { kind: 'conversation' as const, conversationId: 'conv-3', agentId: 'support-agent', revision: 1 },
    };
    await store.recordEvaluations([record]);
    expect(await call('/api/v1/conversations/conv-3/evaluations')).toEqual({
      status: 200,
      body: { evaluations: [record] },
      headers: expect.anything(),
    });
  });

  // What a rehearsal quotes: the interactions' own evaluations, after the conversation's.
  it("adds the interactions' own evaluations with ?include=interactions", async () => {
    const [revision] = await store.listConversationRevisions('conv-3', 'support-agent');
    const ofTurn = {
      evaluationId: 'e-conv-3-turn',
      interactionId: revision.lastInteractionId,
      evaluatorId: 'reply-length',
      evaluatorVersion: '1',
      agentId: 'support-agent',
      outcome: { type: 'verdict' as const, evaluation: { passed: false, explanation: 'too short', attributes: {} } },
      triggeredAt: minutesAgo(45),
      startedAt: minutesAgo(45),
      completedAt: minutesAgo(44),
      attempts: 1,
      subject: { kind: 'interaction' as const },
    };
    await store.recordEvaluations([ofTurn]);
    const own = (await call('/api/v1/conversations/conv-3/evaluations')).body as {
      evaluations: { evaluationId: string }[];
    };
    expect(own.evaluations.map((record) => record.evaluationId)).toEqual(['e-conv-3']);
    const all = await call('/api/v1/conversations/conv-3/evaluations?agent=support-agent&include=interactions');
    expect(all.status).toBe(200);
    expect((all.body as { evaluations: { evaluationId: string }[] }).evaluations.map((r) => r.evaluationId)).toEqual([
      'e-conv-3',
      'e-conv-3-turn',
    ]);
    expect(await call('/api/v1/conversations/conv-3/evaluations?include=everything')).toMatchObject({
      status: 400,
      body: { error: 'include must be interactions (got "everything")' },
    });
  });

  it('ends a conversation on POST …/end: 202, due once the grace is over; 404 unknown; 409 ambiguous', async () => {
    const ended = await call('/api/v1/conversations/conv-1/end', { method: 'POST' });
    expect(ended).toMatchObject({
      status: 202,
      body: { conversationId: 'conv-1', agentId: 'support-agent', revision: 1, status: 'ending' },
    });
    const at = (ms: number) => new Date(NOW + ms).toISOString();
    const dueNames = async (ms: number) =>
      (await store.findDueConversations({ now: at(ms), idleMs: 3_600_000, limit: 10 })).map((d) => d.conversationId);
    expect(await dueNames(GRACE_MS - 1)).toEqual([]);
    expect(await store.findDueConversations({ now: at(GRACE_MS), idleMs: 3_600_000, limit: 10 })).toEqual([
      {
        conversationId: 'conv-1',
        agentId: 'support-agent',
        revision: 1,
        turns: 2,
        endReason: 'explicit',
        endTime: new Date(NOW).toISOString(),
      },
    ]);
    expect(await call('/api/v1/conversations/conv-3/end', { method: 'POST' })).toMatchObject({
      status: 202,
      body: { revision: 1, status: 'over' },
    });
    expect(await call('/api/v1/conversations/nope/end?agent=support-agent', { method: 'POST' })).toMatchObject({
      status: 404,
      body: { error: 'conversation nope of agent support-agent not found' },
    });
    expect(await call('/api/v1/conversations/conv-2/end', { method: 'POST' })).toMatchObject({
      status: 409,
      body: { agents: ['billing-agent', 'support-agent'] },
    });
  });

  it('answers 405 with Allow for a method a conversation route does not take', async () => {
    const get = await call('/api/v1/conversations/conv-1/end');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const post = await call('/api/v1/conversations', { method: 'POST' });
    expect(post).toMatchObject({
      status: 405,
      body: { error: 'method POST is not allowed on /api/v1/conversations (allowed: GET, HEAD)' },
    });
  });

  it('answers 401 to the conversation routes, POST …/end included, without the bearer token', async () => {
    const guarded = createApiServer({
      host: '127.0.0.1',
      port: 0,
      store,
      ready: () => true,
      now: () => NOW,
      bearerToken: 's3cret',
    });
    await guarded.start();
    try {
      const url = `http://127.0.0.1:${guarded.address().port}/api/v1/conversations/conv-2/end?agent=billing-agent`;
      expect((await fetch(url, { method: 'POST' })).status).toBe(401);
      expect((await fetch(url.replace('/end', ''))).status).toBe(401);
      const open = await store.getConversation('conv-2', 'billing-agent');
      expect(open?.open).toBe(true);
      const allowed = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer s3cret' } });
      expect(allowed.status).toBe(202);
    } finally {
      await guarded.shutdown();
    }
  });
});
