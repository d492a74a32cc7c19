/**
 * The OTLP/HTTP trace receiver: a node:http (or, with `tls`, node:https) server answering
 * POST /v1/traces (protobuf and JSON, gzip/deflate), handing decoded spans to `next`. It owns
 * transport concerns only: limits, authentication, TLS, status codes; what happens to spans is the
 * consumer's business.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Lifecycle, SpanConsumer } from '../../pipeline/consumer.ts';
import { createBearerCheck } from '../../security/bearer-auth.ts';
import { createHttpServer } from '../../security/http-server.ts';
import {
  DEFAULT_MAX_IN_FLIGHT_BYTES,
  DEFAULT_SHUTDOWN_GRACE_MS,
  type OtlpReceiverConfig,
  type OtlpReceiverHooks,
} from './config.ts';
import { formatOfContentType } from './content-negotiation.ts';
import { RpcCode } from './encode-response.ts';
import { ReceiverStartError } from './errors.ts';
import { createExportHandler } from './export-handler.ts';
import { replyStatus } from './http-reply.ts';
import { createInFlightBudget } from './in-flight-budget.ts';

export interface OtlpReceiver extends Lifecycle {
  /** Where the receiver listens: the bound port once started (useful with port 0). */
  address(): { host: string; port: number };
}

export function createOtlpReceiver(
  config: OtlpReceiverConfig,
  next: SpanConsumer,
  hooks: OtlpReceiverHooks = {},
): OtlpReceiver {
  let server: Server | undefined;
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  /** Requests being handled, from headers to the answer handed to the socket. */
  const active = new Set<Promise<void>>();

  const handle = createExportHandler({
    maxRequestBodyBytes: config.maxRequestBodyBytes,
    isAuthorized: createBearerCheck(config.bearerToken),
    budget: createInFlightBudget(config.maxInFlightBytes ?? DEFAULT_MAX_IN_FLIGHT_BYTES),
    next,
    hooks,
    isShuttingDown: () => stopping !== undefined,
  });

  const track = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => {
    const done = handle(req, res, expectsContinue)
      .catch((error: unknown) => answerInternalError(req, res, error))
      .finally(() => active.delete(done));
    active.add(done);
  };

  function answerInternalError(req: IncomingMessage, res: ServerResponse, error: unknown): Promise<void> {
    const what = error instanceof Error ? (error.stack ?? error.message) : String(error);
    hooks.logger?.warn(`otlp receiver: request failed unexpectedly, answered 500: ${what}`);
    if (res.headersSent) {
      res.destroy();
      return Promise.resolve();
    }
    const format = formatOfContentType(req.headers['content-type']) ?? 'json';
    return replyStatus(req, res, 500, format, {
      code: RpcCode.INTERNAL,
      message: 'otlp receiver: internal error (see the collector log)',
    });
  }

  function start(): Promise<void> {
    if (stopping !== undefined)
      return Promise.reject(new ReceiverStartError('otlp receiver: cannot start after shutdown'));
    starting ??= new Promise<void>((resolve, reject) => {
      // Node's own bounds on slow clients, spelled out: headers within 60 s, a whole request within 5 min.
      const created = createHttpServer(config.tls, { requestTimeout: 300_000, headersTimeout: 60_000 }, (req, res) =>
        track(req, res, false),
      );
      // Answer `Expect: 100-continue` ourselves, so refused requests never get to send their body.
      created.on('checkContinue', (req, res) => track(req, res, true));
      created.once('error', (error: NodeJS.ErrnoException) => {
        reject(
          new ReceiverStartError(
            `otlp receiver: cannot listen on ${config.host}:${config.port} (${error.code ?? error.message})`,
            {
              cause: error,
            },
          ),
        );
      });
      created.listen(config.port, config.host, () => {
        created.removeAllListeners('error');
        created.on('error', (error) => hooks.logger?.warn(`otlp receiver: server error: ${error.message}`));
        resolve();
      });
      server = created;
    });
    return starting;
  }

  function shutdown(): Promise<void> {
    stopping ??= (async () => {
      await starting?.catch(() => {});
      const current = server;
      if (current === undefined || !current.listening) return;
      const closed = new Promise<void>((resolve) => current.close(() => resolve()));
      current.closeIdleConnections();
      // Let in-flight requests finish; past the grace, cut the connections of clients still
      // sending (their requests end, unacknowledged, and the clients retry) but still wait for
      // handlers that are storing spans, so that nothing downstream is closed under them.
      const grace = config.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
      const settled = Promise.allSettled([...active]);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'grace-over'>((resolve) => {
        timer = setTimeout(() => resolve('grace-over'), grace);
      });
      if ((await Promise.race([settled, graceOver])) === 'grace-over') current.closeAllConnections();
      clearTimeout(timer);
      while (active.size > 0) await Promise.allSettled([...active]);
      current.closeAllConnections();
      await closed;
    })();
    return stopping;
  }

  function address(): { host: string; port: number } {
    const bound = server?.address();
    if (bound !== null && bound !== undefined && typeof bound === 'object') {
      return { host: config.host, port: (bound as AddressInfo).port };
    }
    return { host: config.host, port: config.port };
  }

  return { start, shutdown, address };
}
