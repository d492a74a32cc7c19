/** The `api` extension: the HTTP API beside the pipeline, reading the ledger and the components' counters. */
import { listenOrFail, type ComponentFactory, type ComponentSettings } from '../component.ts';
import type { LedgerStore } from '../ledger/store.ts';
import { schemeOf } from '../security/http-server.ts';
import { warnIfOpen } from '../security/open-endpoint.ts';
import { readServerTls } from '../security/tls-files.ts';
import { createApiServer, type ApiServer, type Readiness } from './api-server.ts';
import { apiExtensionSchema, type ApiExtensionConfig } from './config.ts';

const API_PATH = 'extensions::api';

export interface ApiExtensionSettings extends ComponentSettings {
  store: LedgerStore;
  /** Asked at every `GET /readyz`. */
  ready: () => Readiness;
  /** The running collector's counters, served at `GET /api/v1/stats`. */
  stats: () => Record<string, unknown>;
  /** Resumes evaluations due now (a reviewer's verdict was just delivered). */
  wakeEvaluations?: () => void;
  /** Agreement between evaluator entries, served at `GET /api/v1/agreement`. */
  agreement?: () => unknown;
  /** How long after `POST /api/v1/conversations/{id}/end` the conversation may close (the settle window). */
  conversationEndGraceMs?: number;
  /** The collector's clock (tests inject one): end requests and relative `since` count from it. */
  clock?: () => number;
}

export const apiExtensionFactory = {
  kind: 'extension',
  type: 'api',
  schema: apiExtensionSchema,
  configuredByDefault: false,
  create(settings: ApiExtensionSettings, config: ApiExtensionConfig): ApiServer {
    // Read now, at startup: a TLS file that cannot be used stops the collector, naming its key.
    const tls = config.tls ? readServerTls(config.tls, `${API_PATH}::tls`) : undefined;
    const server = createApiServer({
      host: config.host,
      port: config.port,
      store: settings.store,
      ready: settings.ready,
      stats: settings.stats,
      ...(settings.wakeEvaluations ? { wakeEvaluations: settings.wakeEvaluations } : {}),
      ...(settings.agreement ? { agreement: settings.agreement } : {}),
      ...(config.bearerToken !== undefined ? { bearerToken: config.bearerToken } : {}),
      ...(tls ? { tls } : {}),
      ...(settings.clock ? { now: settings.clock } : {}),
      ...(settings.conversationEndGraceMs !== undefined
        ? { conversationEndGraceMs: settings.conversationEndGraceMs }
        : {}),
    });
    return {
      async start() {
        await listenOrFail(() => server.start(), `${API_PATH}::endpoint`, config);
        const bound = server.address();
        settings.logger.info(`API listening on ${schemeOf(tls)}://${bound.host}:${bound.port}`);
        warnIfOpen(settings.logger, API_PATH, bound, {
          bearerToken: config.bearerToken,
          mutualTls: config.tls?.clientCaFile !== undefined,
        });
      },
      shutdown: () => server.shutdown(),
      address: () => server.address(),
    };
  },
} satisfies ComponentFactory<ApiExtensionConfig, ApiExtensionSettings, ApiServer>;
