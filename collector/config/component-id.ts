/**
 * Component ids as the OpenTelemetry Collector writes them: `type` alone (`otlphttp`) or
 * `type/name` (`otlphttp/tempo`), so that one type can be configured several times. The type
 * chooses the factory; the whole id is what `service.pipelines` lists and what messages and metrics
 * name. Shared by every section whose keys are ids (`exporters`, and any other that allows names).
 */

/**
 * `type` from the first character to the first `/`: a letter, then letters, digits, `_` or `-`
 * (the Collector's rule, with `-`, which Evalon's evaluator ids such as `llm-judge` use).
 */
const TYPE = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
/** The name may hold anything but whitespace and control characters (the Collector's rule). */
const NAME = /^[^\s\p{Cc}]+$/u;

export interface ComponentId {
  /** The key as written: `otlphttp/tempo`. */
  readonly id: string;
  /** Before the `/`: the factory's key (`otlphttp`). */
  readonly type: string;
  /** After the first `/`, when there is one (`tempo`). */
  readonly name?: string;
}

/** A key that is no component id. Its message is a predicate about the key, as schema messages are. */
export class ComponentIdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ComponentIdError';
  }
}

/** Splits `type/name`; throws `ComponentIdError` for an empty or malformed type or name. */
export function parseComponentId(key: string): ComponentId {
  const slash = key.indexOf('/');
  const type = slash === -1 ? key : key.slice(0, slash);
  const name = slash === -1 ? undefined : key.slice(slash + 1);
  if (!TYPE.test(type)) {
    throw new ComponentIdError(
      type === ''
        ? 'has no type before "/" (write type/name, such as otlphttp/tempo)'
        : `has an invalid type ${JSON.stringify(type)} (a letter, then letters, digits, _ or -)`,
    );
  }
  if (name === undefined) return { id: key, type };
  if (name === '') {
    throw new ComponentIdError(`has an empty name after "/" (write ${type}/<name>, such as ${type}/primary)`);
  }
  if (!NAME.test(name)) {
    throw new ComponentIdError(`has an invalid name ${JSON.stringify(name)} (no spaces or control characters)`);
  }
  return { id: key, type, name };
}

/** The type of a key, or undefined when the key is no valid id (the schema reports it). */
export function componentTypeOf(key: string): string | undefined {
  try {
    return parseComponentId(key).type;
  } catch {
    return undefined;
  }
}
