/**
 * A stand-in for the collector's conversation routes (collector/api/conversation-routes.ts),
 * serving their contract from a real collector's interaction records (read through its
 * `GET /api/v1/interactions?conversation=ID`), with conversation verdicts a test supplies and
 * requests it can inspect (the end-to-end rehearsal uses the collector's own routes):
 *
 * - `GET /api/v1/conversations/{id}?agent=ID` → the conversation record with its interactions in
 *   order of start time; 404 when unknown; 409 `{error, agents}` when several agents have that
 *   conversation id and no agent is given;
 * - `GET /api/v1/conversations/{id}/evaluations?agent=ID&include=interactions` → `{evaluations}`:
 *   any conversation verdicts the test supplies, and the evaluations the collector recorded for
 *   its interactions (always: `include` is not read).
 *
 * With a token, requests without `Authorization: Bearer <token>` are answered 401.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConversationWithInteractions, EvaluationRecord, InteractionRecord } from '../../src/model/records.ts';

export interface ConversationApiOptions {
  /** The real collector's API, e.g. `http://127.0.0.1:4319`. */
  collectorApiUrl: string;
  token?: string;
  /** Conversation verdicts to serve beside the interactions' own. */
  conversationEvaluations?: (conversationId: string, agentId: string) => EvaluationRecord[];
}

export interface ConversationApi {
  url: string;
  /** Every request served: its path and query, and its Authorization header. */
  requests: Array<{ target: string; authorization?: string }>;
  close(): Promise<void>;
}

export async function startConversationApi(options: ConversationApiOptions): Promise<ConversationApi> {
  const requests: ConversationApi['requests'] = [];
  const collectorGet = async <T>(path: string): Promise<T> => {
    const response = await fetch(new URL(path, options.collectorApiUrl));
    if (!response.ok) throw new Error(`collector answered ${response.status} for ${path}`);
    return (await response.json()) as T;
  };

  async function answer(url: URL, authorization: string | undefined): Promise<{ status: number; body: unknown }> {
    if (options.token !== undefined && authorization !== `Bearer ${options.token}`)
      return { status: 401, body: { error: 'missing or wrong bearer token' } };
    const match = /^\/api\/v1\/conversations\/([^/]+)(\/evaluations)?$/.exec(url.pathname);
    if (!match) return { status: 404, body: { error: `no route for GET ${url.pathname}` } };
    const conversationId = decodeURIComponent(match[1]);
    const agent = url.searchParams.get('agent') ?? undefined;
    const { interactions } = await collectorGet<{ interactions: InteractionRecord[] }>(
      `/api/v1/interactions?conversation=${encodeURIComponent(conversationId)}&limit=1000`,
    );
    const agents = [...new Set(interactions.map((record) => record.agentId))].sort();
    if (agent === undefined && agents.length > 1)
      return {
        status: 409,
        body: { error: `several agents have conversation ${conversationId} (give agent)`, agents },
      };
    const agentId = agent ?? agents[0];
    const own = interactions
      .filter((record) => record.agentId === agentId)
      .sort((a, b) => a.startTime.localeCompare(b.startTime));
    if (own.length === 0) return { status: 404, body: { error: `conversation ${conversationId} not found` } };
    if (match[2]) {
      const perInteraction = await Promise.all(
        own.map(async (record) => {
          const path = `/api/v1/interactions/${record.interactionId}/evaluations`;
          return (await collectorGet<{ evaluations: EvaluationRecord[] }>(path)).evaluations;
        }),
      );
      const conversation = options.conversationEvaluations?.(conversationId, agentId) ?? [];
      return { status: 200, body: { evaluations: [...conversation, ...perInteraction.flat()] } };
    }
    const last = own[own.length - 1];
    const body: ConversationWithInteractions = {
      conversationId,
      agentId,
      revision: 1,
      interactionIds: own.map((record) => record.interactionId),
      startTime: own[0].startTime,
      lastActivityTime: last.endTime,
      open: true,
      failed: last.failed,
      turns: own.length,
      interactions: own,
    };
    return { status: 200, body };
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in.local');
    requests.push({
      target: `${url.pathname}${url.search}`,
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
    });
    answer(url, request.headers.authorization).then(
      ({ status, body }) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      (error: unknown) =>
        response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
