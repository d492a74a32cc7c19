/**
 * The collector's HTTP API (README.md here) on node:http, or node:https with `tls`: health,
 * readiness, the interaction ledger read-only (`/api/v1/interactions`,
 * `/api/v1/interactions/{interactionId}`, `/api/v1/interactions/{interactionId}/evaluations`),
 * conversations (`/api/v1/conversations…`, conversation-routes.ts, whose `POST …/end` requests an
 * end), the collector's counters (`/api/v1/stats`), the review queue (`/api/v1/reviews…`,
 * reviews-routes.ts, whose POSTs claim reviews and submit verdicts), agreement between entries
 * (`/api/v1/agreement`) and the review page under `/ui/` (ui/ui-routes.ts). Bodies are JSON (a
 * POST that reads one refuses any other Content-Type with 415); records use exactly the record
 * type names. A failing handler answers 500, never crashes the collector. With a bearer token, the
 * token gate answers 401 before any route but the health checks and the page's sign-in
 * (`/ui/session`, ui/page-session.ts) is reached without the token or the page's session cookie
 * (token-gate.ts). An interaction (or conversation) pruned by retention while its evaluations are
 * kept answers 410.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../security/http-server.ts';
import type { ServerTlsOptions } from '../security/tls-files.ts';
import type { ConversationStore } from '../ledger/conversation-store.ts';
import type { EvaluationWaits } from '../ledger/evaluation-waits.ts';
import type { InteractionStore } from '../ledger/interaction-store.ts';
import type { LedgerRetention, PrunedInteraction } from '../ledger/ledger-retention.ts';
import type { RecordedEvaluations } from '../ledger/recorded-evaluations.ts';
import type { ReviewStore } from '../ledger/review-store.ts';
import { conversationRoutes } from './conversation-routes.ts';
import { BodyTooLargeError, isJsonContentType, readBody } from './request-body.ts';
import { reviewRoutes } from './reviews-routes.ts';
import { ApiQueryError, parseInteractionsQuery } from './interactions-query.ts';
import { matchRoute, type JsonReply, type Route } from './router.ts';
import { createTokenGate } from './token-gate.ts';
import { createPageSession } from './ui/page-session.ts';
import { uiRoutes } from './ui/ui-routes.ts';

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
    Pick<LedgerRetention, 'getPrunedInteraction' | 'getPrunedConversation'> &
    ReviewStore &
    Pick<EvaluationWaits, 'deliverSignal'>;
  /** How long after `POST …/end` a conversation may close (the settle window; default 2 s). */
  conversationEndGraceMs?: number;
  /** Asked at every `GET /readyz`. */
  ready: () => Readiness;
  /** The clock that relative `since` values count back from (tests inject one). */
  now?: () => number;
  /** Counters of the running collector, served at `GET /api/v1/stats`. */
  stats?: () => Record<string, unknown>;
  /** `auth.bearer_token`: every path but `/healthz` and `/readyz` needs it (or the page's session cookie). */
  bearerToken?: string;
  /** Serve HTTPS (the TLS files as read at startup). */
  tls?: ServerTlsOptions;
  /** Resumes the evaluations due now (a verdict was just delivered): the evaluation runtime's `wake`. */
  wakeEvaluations?: () => void;
  /** Agreement between evaluator entries, served at `GET /api/v1/agreement`. */
  agreement?: () => unknown;
  /** How long a verdict's submission waits for its record before answering 202. */
  recordWaitMs?: number;
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
  // The session cookie is `Secure` when the API is served over TLS: a browser then never sends it in clear.
  const pageSession = options.bearerToken
    ? createPageSession(options.bearerToken, { secure: options.tls !== undefined })
    : undefined;
  const tokenGate = createTokenGate(options.bearerToken, pageSession);

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
    {
      path: /^\/api\/v1\/agreement$/,
      get: () =>
        options.agreement
          ? { status: 200, body: options.agreement() }
          : error(404, 'no agreement in this collector (the evaluation processor is not running)'),
    },
    ...reviewRoutes({
      store,
      now,
      ...(options.wakeEvaluations ? { wake: options.wakeEvaluations } : {}),
      ...(options.recordWaitMs !== undefined ? { recordWaitMs: options.recordWaitMs } : {}),
    }),
    // Before the page's files: `/ui/session` is no file.
    ...(pageSession ? pageSession.routes : []),
    ...uiRoutes(),
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
    let body: string;
    try {
      body = await readBody(request);
    } catch (cause) {
      if (cause instanceof BodyTooLargeError) return error(413, cause.message, { field: 'body' });
      throw cause;
    }
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
        if (match.json && !isJsonContentType(request.headers['content-type'])) {
          return error(415, 'the request body must be JSON: send Content-Type: application/json', {
            field: 'content-type',
          });
        }
        try {
          return await match.handler(match.params, url, body);
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
      const refusal = tokenGate({
        method: request.method ?? 'GET',
        pathname: (request.url ?? '/').split('?')[0]!,
        headers: request.headers,
      });
      if (refusal) {
        // The body is not read: drain it so that the keep-alive connection stays usable.
        request.resume();
        return send(response, refusal);
      }
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
