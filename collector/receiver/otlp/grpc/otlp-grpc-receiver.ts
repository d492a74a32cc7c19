/**
 * The OTLP/gRPC trace receiver: a grpc-js server with the TraceService (`Export`), handing decoded
 * spans to `next`. It exists for senders that speak only gRPC, above all the OpenTelemetry
 * Collector's `loadbalancing` exporter that spreads traces over Evalon replicas. Plaintext, or TLS
 * with `tls` (mutual TLS with `tls.client_ca_file`: grpc-js refuses a client without a certificate
 * signed by it during the handshake).
 */
import {
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type sendUnaryData,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import type { Lifecycle, SpanConsumer } from '../../../pipeline/consumer.ts';
import { createBearerCheck } from '../../../security/bearer-auth.ts';
import { DEFAULT_MAX_IN_FLIGHT_BYTES, DEFAULT_SHUTDOWN_GRACE_MS, type OtlpReceiverHooks } from '../config.ts';
import { ReceiverStartError } from '../errors.ts';
import { createInFlightBudget } from '../in-flight-budget.ts';
import type { GrpcReceiverConfig } from './config.ts';
import { createExportCallHandler } from './export-call.ts';
import { traceServiceDefinition, type ExportTraceServiceResponse } from './trace-service.ts';

export interface OtlpGrpcReceiver extends Lifecycle {
  /** Where the receiver listens: the bound port once started (useful with port 0). */
  address(): { host: string; port: number };
}

export function createOtlpGrpcReceiver(
  config: GrpcReceiverConfig,
  next: SpanConsumer,
  hooks: OtlpReceiverHooks = {},
): OtlpGrpcReceiver {
  let server: Server | undefined;
  let boundPort: number | undefined;
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  /** Calls being handled, from the decoded request to the answer handed to grpc-js. */
  const active = new Set<Promise<void>>();

  const handle = createExportCallHandler({
    isAuthorized: createBearerCheck(config.bearerToken),
    budget: createInFlightBudget(config.maxInFlightBytes ?? DEFAULT_MAX_IN_FLIGHT_BYTES),
    next,
    hooks,
    isShuttingDown: () => stopping !== undefined,
  });

  function exportTraces(
    call: ServerUnaryCall<Buffer, ExportTraceServiceResponse>,
    callback: sendUnaryData<ExportTraceServiceResponse>,
  ): void {
    const done = handle(call)
      .then(
        (answer) => (answer.ok ? callback(null, answer.response) : callback(answer.failure)),
        (error: unknown) => {
          const what = error instanceof Error ? (error.stack ?? error.message) : String(error);
          hooks.logger?.warn(`otlp grpc receiver: call failed unexpectedly, answered INTERNAL: ${what}`);
          callback({
            code: GrpcStatus.INTERNAL,
            details: 'otlp grpc receiver: internal error (see the collector log)',
          });
        },
      )
      .finally(() => active.delete(done));
    active.add(done);
  }

  function start(): Promise<void> {
    if (stopping !== undefined)
      return Promise.reject(new ReceiverStartError('otlp grpc receiver: cannot start after shutdown'));
    starting ??= new Promise<void>((resolve, reject) => {
      const created = new Server({
        // Checked by grpc-js on the declared message length (before buffering) and after decompression.
        'grpc.max_receive_message_length': config.maxRecvMsgBytes,
      });
      created.addService(traceServiceDefinition, { Export: exportTraces });
      const credentials = config.tls
        ? ServerCredentials.createSsl(
            config.tls.ca ?? null,
            [{ private_key: config.tls.key, cert_chain: config.tls.cert }],
            config.tls.requestCert,
          )
        : ServerCredentials.createInsecure();
      created.bindAsync(hostPort(config.host, config.port), credentials, (error, port) => {
        if (error !== null) {
          reject(
            new ReceiverStartError(
              `otlp grpc receiver: cannot listen on ${hostPort(config.host, config.port)} (${error.message})`,
              { cause: error },
            ),
          );
          return;
        }
        boundPort = port;
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
      if (current === undefined) return;
      // Stop taking connections and calls; let calls in flight finish. Past the grace, cut the
      // connections (those clients retry) but still wait for calls whose spans are being stored,
      // so that nothing downstream is closed under them.
      const drained = new Promise<void>((resolve) => current.tryShutdown(() => resolve()));
      const grace = config.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'grace-over'>((resolve) => {
        timer = setTimeout(() => resolve('grace-over'), grace);
      });
      const outcome = await Promise.race([drained, graceOver]);
      clearTimeout(timer);
      if (outcome === 'grace-over') current.forceShutdown();
      while (active.size > 0) await Promise.allSettled([...active]);
    })();
    return stopping;
  }

  function address(): { host: string; port: number } {
    return { host: config.host, port: boundPort ?? config.port };
  }

  return { start, shutdown, address };
}

/** grpc-js takes `host:port`, with IPv6 hosts in brackets. */
function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
