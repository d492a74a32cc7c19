/** The `interactions` processor: spans stored durably, assembled into interaction records over the ledger. */
import type { ComponentFactory, ComponentSettings } from '../../component.ts';
import type { LedgerStore } from '../../ledger/store.ts';
import { interactionsProcessorSchema, type InteractionsProcessorConfig } from './config.ts';
import {
  createInteractionsProcessor,
  type InteractionsConsumer,
  type InteractionsProcessor,
} from './interactions-processor.ts';

export interface InteractionsProcessorSettings extends ComponentSettings {
  store: LedgerStore;
  /** Completion time (tests inject one); `Date.now` by default. */
  clock?: () => number;
}

export const interactionsProcessorFactory = {
  kind: 'processor',
  type: 'interactions',
  schema: interactionsProcessorSchema,
  configuredByDefault: true,
  create: (settings: InteractionsProcessorSettings, config: InteractionsProcessorConfig, next: InteractionsConsumer) =>
    createInteractionsProcessor({
      store: settings.store,
      // Records are built on a thread of their own, beside the event loop that receives spans.
      config: { ...config, recorder: 'thread' },
      next,
      logger: settings.logger,
      ...(settings.clock ? { clock: settings.clock } : {}),
    }),
} satisfies ComponentFactory<
  InteractionsProcessorConfig,
  InteractionsProcessorSettings,
  InteractionsProcessor,
  InteractionsConsumer
>;
