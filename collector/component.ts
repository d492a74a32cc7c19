/**
 * The collector's component model, as the OpenTelemetry Collector's: each component folder owns
 * its configuration (`config.ts`: the zod schema of its YAML section, defaults as named constants)
 * and a factory (`factory.ts`). `components.ts` lists the factories; `config/` composes the file's
 * schema from them and `service.ts` builds the pipeline with them. A component is handed
 * everything it needs when it is created (settings, its configuration, `next`); it never builds
 * its successor and nothing is set on it afterwards.
 */
import type * as z from 'zod';
import type { HostPort } from './config/values.ts';
import type { Logger } from './logger.ts';

export type ComponentKind = 'receiver' | 'processor' | 'exporter' | 'extension';

/** What every component is given besides its configuration. */
export interface ComponentSettings {
  logger: Logger;
}

/** A factory: the YAML key it is configured under, the schema of that section, and `create`. */
export interface Factory<Config, Settings extends ComponentSettings, Component, Next = void> {
  /** The component's key: under `receivers`, `processors`, … and in `service.pipelines`. */
  readonly type: string;
  /** Checks the YAML section, applies every default and yields the component's configuration. */
  readonly schema: z.ZodType<Config>;
  create(settings: Settings, config: Config, next: Next): Component;
}

/** A factory of a top-level component, listed in `components.ts`. */
export interface ComponentFactory<Config, Settings extends ComponentSettings, Component, Next = void>
  extends Factory<Config, Settings, Component, Next> {
  readonly kind: ComponentKind;
  /**
   * Whether the component is configured with its defaults when its key is left out (the two
   * processors); otherwise it exists only when written (`otlp:` alone is enough).
   */
  readonly configuredByDefault: boolean;
}

/** A component that could not start: the collector stops, naming the YAML key to look at. */
export class CollectorStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CollectorStartError';
  }
}

/** Starts a component that listens; a failure (a port in use) names the key of its endpoint. */
export async function listenOrFail(start: () => Promise<void>, endpointKey: string, endpoint: HostPort): Promise<void> {
  try {
    await start();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CollectorStartError(`${endpointKey}: cannot listen on ${endpoint.host}:${endpoint.port} (${reason})`, {
      cause: error,
    });
  }
}
