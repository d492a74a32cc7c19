/**
 * The collector's HTTP API (README.md here) on node:http, or node:https with `tls`: health,
 * readiness, the interaction ledger read-only (`/api/v1/interactions`,
 * `/api/v1/interactions/{interactionId}`, `/api/v1/interactions/{interactionId}/evaluations`),
 * conversations (`/api/v1/conversations…`, conversation-routes.ts, whose `POST …/end` is the one
 * write), the collector's counters (`/api/v1/stats`) and its pages under `/ui/`. An interaction (or
 * conversation) pruned by retention while its evaluations are kept answers 410. Bodies are JSON;
 * records use exactly the record type names. A failing handler answers 500, never crashes the
 * collector. With a bearer token, the token gate answers 401 before any route but the health
 * checks is reached (token-gate.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../security/http-server.ts';
import type { ServerTlsOptions } from '../security/tls-files.ts';
import type { ConversationStore } from '../ledger/conversation-store.ts';
import type { InteractionStore } from '../ledger/interaction-store.ts';
import type { LedgerRetention, PrunedInteraction } from '../ledger/ledger-retention.ts';
import type { RecordedEvaluations } from '../ledger/recorded-evaluations.ts';
import { conversationRoutes } from './conversation-routes.ts';
import { ApiQueryError, parseInteractionsQuery } from './interactions-query.ts';
import { matchRoute, type JsonReply, type Route } from './router.ts';
import { createTokenGate } from './token-gate.ts';
import { UI_INDEX_HTML } from './ui-index.ts';

/** How long an idle keep-alive connection stays open. */
export const KEEP_ALIVE_TIMEOUT_MS = 5000;
/** How long a request may take to arrive in full. */
export const REQUEST_TIMEOUT_MS = 30_000;

export type Readiness = boolean | { ready: boolean; reason?: string };

export interface ApiServerOptions {
  host: string;
  /** 0 picks a free port; `address()` tells which. */
  port: number;
  store: InteractionStore &
    RecordedEvaluations &
    ConversationStore &
    Pick<LedgerRetention, 'getPrunedInteraction' | 'getPrunedConversation'>;
  /** How long after `POST …/end` a conversation may close (the settle window; default 2 s). */
  conversationEndGraceMs?: number;
  /** Asked at every `GET /readyz`. */
  ready: () => Readiness;
  /** The clock that relative `since` values count back from (tests inject one). */
  now?: () => number;
  /** Counters of the running collector, served at `GET /api/v1/stats`. */
  stats?: () => Record<string, unknown>;
  /** `auth.bearer_token`: every path but `/healthz` and `/readyz` needs it. */
  bearerToken?: string;
  /** Serve HTTPS (the TLS files as read at startup). */
  tls?: ServerTlsOptions;
}

export interface ApiServer {
  start(): Promise<void>;
  /** Stops listening and closes open connections. Safe without start, safe twice. */
  shutdown(): Promise<void>;
  address(): { host: string; port: number };
}

const error = (status: number, message: string, extra: Record<string, unknown> = {}): JsonReply => ({
  status,
  body: { error: message, ...extra },
});

/** 410: the interaction was pruned by the ledger's retention; its evaluations are still listed. */
function gone(pruned: PrunedInteraction): JsonReply {
  return error(
    410,
    `interaction ${pruned.interactionId} was pruned at ${pruned.prunedAt} (ledger retention); ` +
      `its evaluations are at /api/v1/interactions/${encodeURIComponent(pruned.interactionId)}/evaluations`,
    {
      interactionId: pruned.interactionId,
      agentId: pruned.agentId,
      endTime: pruned.endTime,
      prunedAt: pruned.prunedAt,
    },
  );
}

export function createApiServer(options: ApiServerOptions): ApiServer {
  const { store } = options;
  const now = options.now ?? Date.now;
  const tokenGate = createTokenGate(options.bearerToken);

  const routes: Route[] = [
    { path: /^\/healthz$/, get: () => ({ status: 200, body: { status: 'ok' } }) },
    {
      path: /^\/readyz$/,
      get: () => {
        const answer = options.ready();
        const { ready, reason } = typeof answer === 'boolean' ? { ready: answer, reason: undefined } : answer;
        if (ready) return { status: 200, body: { status: 'ready' } };
        return { status: 503, body: { status: 'not ready', reason: reason ?? 'the collector is not ready' } };
      },
    },
    {
      path: /^\/api\/v1\/stats$/,
      get: () =>
        options.stats ? { status: 200, body: options.stats() } : error(404, 'no statistics in this collector'),
    },
    {
      path: /^\/api\/v1\/interactions$/,
      get: async (_params, url) => {
        const query = parseInteractionsQuery(url.searchParams, now());
        return { status: 200, body: { interactions: await store.listInteractions(query) } };
      },
    },
    {
      path: /^\/api\/v1\/interactions\/([^/]+)\/evaluations$/,
      get: async ([interactionId]) => {
        // An unknown interaction is 404; a known one without evaluations (yet) is an empty list; one
        // pruned while its evaluations are kept lists them.
        const known = await store.existingInteractionIds([interactionId]);
        if (!known.has(interactionId) && !(await store.getPrunedInteraction(interactionId)))
          return error(404, `interaction ${interactionId} not found`);
        return { status: 200, body: { evaluations: await store.getEvaluations(interactionId) } };
      },
    },
    { path: /^\/ui$/, get: () => ({ status: 200, body: UI_INDEX_HTML, contentType: 'text/html; charset=utf-8' }) },
    {
      path: /^\/api\/v1\/interactions\/([^/]+)$/,
      get: async ([interactionId]) => {
        const record = await store.getInteraction(interactionId);
        if (record) return { status: 200, body: record };
        const pruned = await store.getPrunedInteraction(interactionId);
        return pruned ? gone(pruned) : error(404, `interaction ${interactionId} not found`);
      },
    },
    ...conversationRoutes({
      store,
      now,
      ...(options.conversationEndGraceMs !== undefined ? { endGraceMs: options.conversationEndGraceMs } : {}),
    }),
  ];

  async function reply(request: IncomingMessage): Promise<JsonReply & { allow?: string }> {
    const method = request.method ?? 'GET';
    let url: URL;
    try {
      url = new URL(request.url ?? '/', 'http://api.local');
    } catch {
      return error(400, `malformed request target ${request.url}`);
    }
    const match = matchRoute(routes, method, url.pathname);
    switch (match.kind) {
      case 'not-found':
        return error(404, `no route for ${method} ${url.pathname}`);
      case 'bad-path':
        return error(400, match.message);
      case 'method-not-allowed':
        return {
          ...error(405, `method ${method} is not allowed on ${url.pathname} (allowed: ${match.allow})`),
          allow: match.allow,
        };
      case 'handler':
        try {
          return await match.handler(match.params, url);
        } catch (cause) {
          if (cause instanceof ApiQueryError) return error(400, cause.message, { parameter: cause.parameter });
          return error(500, `internal error: ${cause instanceof Error ? cause.message : String(cause)}`);
        }
    }
  }

  function send(
    response: ServerResponse,
    result: JsonReply & { allow?: string; headers?: Record<string, string> },
  ): void {
    const body = result.contentType ? String(result.body) : JSON.stringify(result.body);
    const headers: Record<string, string | number> = {
      ...result.headers,
      'content-type': result.contentType ?? 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    };
    if (result.allow) headers.allow = result.allow;
    response.writeHead(result.status, headers).end(body);
  }

  const server = createHttpServer(
    options.tls,
    { keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    (request, response) => {
      // Request bodies are not read by any route (POST …/end takes none); drain them so keep-alive
      // connections stay usable.
      request.resume();
      const refusal = tokenGate((request.url ?? '/').split('?')[0]!, request.headers.authorization);
      if (refusal) return send(response, refusal);
      reply(request).then(
        (result) => send(response, result),
        (cause: unknown) => send(response, error(500, `internal error: ${String(cause)}`)),
      );
    },
  );

  let started: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;

  return {
    start() {
      started ??= new Promise<void>((resolve, reject) => {
        const onError = (cause: Error) => reject(cause);
        server.once('error', onError);
        server.listen(options.port, options.host, () => {
          server.off('error', onError);
          resolve();
        });
      });
      return started;
    },
    shutdown() {
      stopped ??= (async () => {
        await started?.catch(() => {});
        if (!server.listening) return;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return stopped;
    },
    address() {
      const bound = server.address() as AddressInfo | null;
      return bound ? { host: options.host, port: bound.port } : { host: options.host, port: options.port };
    },
  };
}
