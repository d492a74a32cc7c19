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

export interface OtlpReceiverComponent extends Lifecycle {
  /** Where each protocol listens, once started (the bound ports, for port 0). */
  addresses(): { http: HostPort; grpc?: HostPort };
}

export const otlpReceiverFactory = {
  kind: 'receiver',
  type: 'otlp',
  schema: otlpReceiverSchema,
  configuredByDefault: false,
  create(settings: ComponentSettings, config: OtlpProtocolsConfig, next: SpanConsumer): OtlpReceiverComponent {
    const http = createOtlpReceiver(config.http, next, { logger: settings.logger });
    const grpc = config.grpc ? otlpGrpcProtocolFactory.create(settings, config.grpc, next) : undefined;
    return {
      async start() {
        await listenOrFail(() => http.start(), 'receivers::otlp::protocols::http::endpoint', config.http);
        const bound = http.address();
        settings.logger.info(`OTLP/HTTP receiver listening on http://${bound.host}:${bound.port}/v1/traces`);
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
    };
  },
} satisfies ComponentFactory<OtlpProtocolsConfig, ComponentSettings, OtlpReceiverComponent, SpanConsumer>;
