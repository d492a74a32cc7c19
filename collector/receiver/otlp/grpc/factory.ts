/**
 * The OTLP/gRPC protocol of the `otlp` receiver: created by `../factory.ts` when
 * `receivers.otlp.protocols.grpc` is written, with the same `next` as the HTTP protocol.
 */
import { listenOrFail, type ComponentSettings, type Factory } from '../../../component.ts';
import type { SpanConsumer } from '../../../pipeline/consumer.ts';
import type { OtlpReceiverHooks } from '../config.ts';
import { warnIfOpen } from '../../../security/open-endpoint.ts';
import { readServerTls } from '../../../security/tls-files.ts';
import { otlpGrpcReceiverSchema, type OtlpGrpcReceiverConfig } from './config.ts';
import { createOtlpGrpcReceiver, type OtlpGrpcReceiver } from './otlp-grpc-receiver.ts';

const GRPC_PATH = 'receivers::otlp::protocols::grpc';

/** The `otlp` receiver's settings, with where the gRPC protocol reports its refusals. */
export type GrpcProtocolSettings = ComponentSettings & Pick<OtlpReceiverHooks, 'onRefused'>;

export const otlpGrpcProtocolFactory = {
  type: 'grpc',
  schema: otlpGrpcReceiverSchema,
  create(settings: GrpcProtocolSettings, config: OtlpGrpcReceiverConfig, next: SpanConsumer): OtlpGrpcReceiver {
    // TLS files are read now, at startup: one that cannot be used stops the collector, naming its key.
    const tls = config.tls ? readServerTls(config.tls, `${GRPC_PATH}::tls`) : undefined;
    const receiver = createOtlpGrpcReceiver({ ...config, tls }, next, {
      logger: settings.logger,
      ...(settings.onRefused ? { onRefused: settings.onRefused } : {}),
    });
    return {
      async start() {
        await listenOrFail(() => receiver.start(), `${GRPC_PATH}::endpoint`, config);
        const bound = receiver.address();
        settings.logger.info(`OTLP/gRPC receiver listening on ${bound.host}:${bound.port}${tls ? ' (TLS)' : ''}`);
        warnIfOpen(settings.logger, GRPC_PATH, bound, {
          bearerToken: config.bearerToken,
          mutualTls: config.tls?.clientCaFile !== undefined,
        });
      },
      shutdown: () => receiver.shutdown(),
      address: () => receiver.address(),
    };
  },
} satisfies Factory<OtlpGrpcReceiverConfig, GrpcProtocolSettings, OtlpGrpcReceiver, SpanConsumer>;
