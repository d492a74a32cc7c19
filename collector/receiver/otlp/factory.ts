/**
 * The `otlp` receiver: OTLP/HTTP always, OTLP/gRPC when `protocols.grpc` is written, both handing
 * spans to the same `next`.
 */
import { listenOrFail, type ComponentFactory, type ComponentSettings } from '../../component.ts';
import type { HostPort } from '../../config/values.ts';
import type { Lifecycle, SpanConsumer } from '../../pipeline/consumer.ts';
import { otlpReceiverSchema, type OtlpProtocolsConfig } from './config.ts';
import { otlpGrpcProtocolFactory } from './grpc/factory.ts';
import { createOtlpReceiver } from './otlp-receiver.ts';
import { createRefusalCounts, type OtlpProtocol, type RefusalReason, type RefusedSpans } from './refusals.ts';
import { warnIfOpen } from '../../security/open-endpoint.ts';
import { schemeOf } from '../../security/http-server.ts';
import { readServerTls } from '../../security/tls-files.ts';

const HTTP_PATH = 'receivers::otlp::protocols::http';

export interface OtlpReceiverComponent extends Lifecycle {
  /** Where each protocol listens, once started (the bound ports, for port 0). */
  addresses(): { http: HostPort; grpc?: HostPort };
  /** Spans refused so far, by reason and protocol (`evalon.receiver.refused_spans`). */
  refusedSpans(): RefusedSpans[];
}

export const otlpReceiverFactory = {
  kind: 'receiver',
  type: 'otlp',
  schema: otlpReceiverSchema,
  configuredByDefault: false,
  create(settings: ComponentSettings, config: OtlpProtocolsConfig, next: SpanConsumer): OtlpReceiverComponent {
    const counts = createRefusalCounts(config.grpc ? ['http', 'grpc'] : ['http']);
    const refused = (protocol: OtlpProtocol) => (reason: RefusalReason, spans: number) => {
      counts.add(protocol, reason, spans);
      settings.logger.debug?.('otlp receiver: refused spans', { protocol, reason, spans });
    };
    // TLS files are read now, at startup: one that cannot be used stops the collector, naming its key.
    const tls = config.http.tls ? readServerTls(config.http.tls, `${HTTP_PATH}::tls`) : undefined;
    const http = createOtlpReceiver({ ...config.http, tls }, next, {
      logger: settings.logger,
      onRefused: refused('http'),
    });
    const grpc = config.grpc
      ? otlpGrpcProtocolFactory.create({ ...settings, onRefused: refused('grpc') }, config.grpc, next)
      : undefined;
    return {
      async start() {
        await listenOrFail(() => http.start(), `${HTTP_PATH}::endpoint`, config.http);
        const bound = http.address();
        const scheme = schemeOf(tls);
        settings.logger.info(`OTLP/HTTP receiver listening on ${scheme}://${bound.host}:${bound.port}/v1/traces`);
        warnIfOpen(settings.logger, HTTP_PATH, bound, {
          bearerToken: config.http.bearerToken,
          mutualTls: config.http.tls?.clientCaFile !== undefined,
        });
        // A gRPC port in use must not leave the HTTP server running.
        await grpc?.start().catch(async (error: unknown) => {
          await http.shutdown();
          throw error;
        });
      },
      async shutdown() {
        await grpc?.shutdown();
        await http.shutdown();
      },
      addresses: () => ({ http: http.address(), ...(grpc ? { grpc: grpc.address() } : {}) }),
      refusedSpans: () => counts.counts(),
    };
  },
} satisfies ComponentFactory<OtlpProtocolsConfig, ComponentSettings, OtlpReceiverComponent, SpanConsumer>;
