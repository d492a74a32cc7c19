/**
 * The component registry: every component type the collector has, by its key in
 * `otel-config.yaml`. `config/schema.ts` composes the file's schema from it, the configuration's
 * graph checks read the types and signals there are from it, and `service.ts` builds the
 * pipeline with it. A new component is a folder with `config.ts` and `factory.ts`, listed here.
 */
import { apiExtensionFactory } from './api/factory.ts';
import { EXPORTER_FACTORIES } from './exporter/exporter-factories.ts';
import { evaluationProcessorFactory } from './processor/evaluation/factory.ts';
import { interactionsProcessorFactory } from './processor/interactions/factory.ts';
import { otlpReceiverFactory } from './receiver/otlp/factory.ts';

export const COMPONENTS = {
  receivers: { otlp: otlpReceiverFactory },
  processors: { interactions: interactionsProcessorFactory, evaluation: evaluationProcessorFactory },
  exporters: EXPORTER_FACTORIES,
  extensions: { api: apiExtensionFactory },
} as const;

/** A top-level section of components: `receivers`, `processors`, `exporters` or `extensions`. */
export type ComponentSection = keyof typeof COMPONENTS;
