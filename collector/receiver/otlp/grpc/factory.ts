/**
 * The OTLP/gRPC protocol of the `otlp` receiver: created by `../factory.ts` when
 * `receivers.otlp.protocols.grpc` is written, with the same `next` as the HTTP protocol.
 */
import { listenOrFail, type ComponentSettings, type Factory } from '../../../component.ts';
import type { SpanConsumer } from '../../../pipeline/consumer.ts';
import { otlpGrpcReceiverSchema, type OtlpGrpcReceiverConfig } from './config.ts';
import { createOtlpGrpcReceiver, type OtlpGrpcReceiver } from './otlp-grpc-receiver.ts';

export const otlpGrpcProtocolFactory = {
  type: 'grpc',
  schema: otlpGrpcReceiverSchema,
  create(settings: ComponentSettings, config: OtlpGrpcReceiverConfig, next: SpanConsumer): OtlpGrpcReceiver {
    const receiver = createOtlpGrpcReceiver(config, next, { logger: settings.logger });
    return {
      async start() {
        await listenOrFail(() => receiver.start(), 'receivers::otlp::protocols::grpc::endpoint', config);
        const bound = receiver.address();
        settings.logger.info(`OTLP/gRPC receiver listening on ${bound.host}:${bound.port}`);
      },
      shutdown: () => receiver.shutdown(),
      address: () => receiver.address(),
    };
  },
} satisfies Factory<OtlpGrpcReceiverConfig, ComponentSettings, OtlpGrpcReceiver, SpanConsumer>;
