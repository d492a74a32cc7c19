/**
 * The whole `otel-config.yaml` shape, composed from the component registry: under `receivers`,
 * `processors`, `exporters` and `extensions`, each component type's key takes the schema of its
 * factory (`collector/<component>/config.ts`), then `service`. Parsing yields the normalised
 * `EvalonConfig` except for relative paths, which the loader resolves against the file that wrote
 * them.
 */
import type * as z from 'zod';
import { COMPONENTS, type ComponentSection } from '../components.ts';
import type { EvalonConfig } from './evalon-config.ts';
import { namedComponentSection } from './named-components.ts';
import { section } from './schema-kit.ts';
import { serviceSchema } from './service-schema.ts';

interface SectionFactory {
  readonly schema: z.ZodType;
  readonly configuredByDefault: boolean;
}

export const configSchema = section({
  receivers: componentSection(COMPONENTS.receivers),
  processors: componentSection(COMPONENTS.processors),
  // Exporters are keyed by id (`otlphttp/tempo`), so one type may be configured several times.
  exporters: namedComponentSection('exporter', COMPONENTS.exporters),
  extensions: componentSection(COMPONENTS.extensions),
  service: serviceSchema,
  // The sections were built from the registry, whose types match EvalonConfig's (checked below).
}).transform((config) => config as unknown as EvalonConfig);

/** One key per component type; a type configured by default is there even when left out. */
function componentSection(factories: Readonly<Record<string, SectionFactory>>) {
  const shape = Object.fromEntries(
    Object.entries(factories).map(([type, factory]) => [
      type,
      factory.configuredByDefault ? factory.schema : factory.schema.optional(),
    ]),
  );
  // A component that is not written is absent, not `undefined`-valued.
  return section(shape).transform((components) =>
    Object.fromEntries(Object.entries(components).filter(([, value]) => value !== undefined)),
  );
}

/** The configuration each factory of a section yields, by type. */
type ConfigsOf<Factories> = {
  [Type in keyof Factories]: Factories[Type] extends { schema: z.ZodType<infer Config> } ? Config : never;
};
type Registered = { [Section in ComponentSection]: ConfigsOf<(typeof COMPONENTS)[Section]> };
/** A section's keys named after the types (`otlphttp`), leaving out the `type/name` patterns. */
type TypeKeys<Section> = {
  [Key in keyof Section as string extends Key ? never : Key extends `${string}/${string}` ? never : Key]: Section[Key];
};
type Declared = { [Section in ComponentSection]: Required<TypeKeys<EvalonConfig[Section]>> };
/** Compiles only while the registry and `EvalonConfig` describe the same components. */
const registryMatchesEvalonConfig: [Registered, Declared] extends [Declared, Registered] ? true : never = true;
void registryMatchesEvalonConfig;
