/**
 * `exporters.prometheus`: a scrape endpoint (`GET /metrics`, Prometheus text format 0.0.4) for
 * the collector's metrics. The OpenTelemetry JS Prometheus exporter is the metric reader and its
 * serializer writes the body; the HTTP server is ours, so that port 0 works (tests) and a port in
 * use fails startup with the YAML key named.
 *
 * Exemplars: neither the OpenTelemetry JS metrics SDK nor its Prometheus serializer records or
 * writes exemplars, so no trace id reaches Prometheus (docs/metrics.md).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import type { IMetricReader } from '@opentelemetry/sdk-metrics';
import type { HostPort } from '../../config/values.ts';
import type { Logger } from '../../logger.ts';
import { createHttpServer, schemeOf } from '../../security/http-server.ts';
import type { ServerTlsOptions } from '../../security/tls-files.ts';
import { ExporterStartError } from '../errors.ts';

export const METRICS_PATH = '/metrics';
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface PrometheusEndpoint {
  /**
   * Give this to the MeterProvider. Typed as the interface: the Prometheus exporter carries its
   * own copy of the metrics SDK, whose reader class is a different declaration.
   */
  readonly reader: IMetricReader;
  start(): Promise<void>;
  /** Where it listens, once started. */
  address(): HostPort;
  shutdown(): Promise<void>;
}

export interface PrometheusEndpointOptions {
  logger: Logger;
  /** The exporter's YAML path, `exporters::prometheus` (default), which starts each message. */
  where?: string;
  /** Serve HTTPS (mutual TLS when it asks for client certificates). */
  tls?: ServerTlsOptions;
}

export function createPrometheusEndpoint(config: HostPort, options: PrometheusEndpointOptions): PrometheusEndpoint {
  const where = options.where ?? 'exporters::prometheus';
  const reader = new PrometheusExporter({ preventServerStart: true });
  const serializer = new PrometheusSerializer();
  let server: Server | undefined;
  let bound: HostPort | undefined;
  let stopped: Promise<void> | undefined;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== METRICS_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: metrics are at ${METRICS_PATH}\n`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    try {
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length > 0) options.logger.warn(`${where}: collecting metrics: ${errors.map(String).join('; ')}`);
      const body = serializer.serialize(resourceMetrics);
      response.writeHead(200, { 'content-type': CONTENT_TYPE });
      response.end(request.method === 'HEAD' ? undefined : body);
    } catch (error) {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(`# failed to collect metrics: ${String(error)}\n`);
    }
  }

  return {
    reader,
    async start() {
      if (server) return;
      const listening = createHttpServer(options.tls, {}, (request, response) => void handle(request, response));
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(config.port, config.host, () => {
          listening.off('error', reject);
          resolve();
        });
      }).catch((error: unknown) => {
        server = undefined;
        throw new ExporterStartError(
          `${where}::endpoint: cannot listen on ${config.host}:${config.port} ` +
            `(${error instanceof Error ? error.message : String(error)})`,
          { cause: error },
        );
      });
      const address = listening.address() as AddressInfo;
      bound = { host: config.host, port: address.port };
      options.logger.info(
        `Prometheus metrics on ${schemeOf(options.tls)}://${bound.host}:${bound.port}${METRICS_PATH} (${where})`,
      );
    },
    address() {
      if (!bound) throw new Error(`${where}: the endpoint is not started`);
      return bound;
    },
    shutdown() {
      stopped ??= (async () => {
        const listening = server;
        server = undefined;
        if (listening) {
          listening.closeAllConnections();
          await new Promise<void>((resolve) => listening.close(() => resolve()));
        }
      })();
      return stopped;
    },
  };
}
