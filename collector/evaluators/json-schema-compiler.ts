/**
 * JSON Schemas of the `json-schema` evaluator, compiled with Ajv (with ajv-formats), the full
 * validator: every keyword of draft 2020-12 (the default), 2019-09 and draft-07, chosen by the
 * schema's `$schema`. The property check compiles each schema at startup and in `evalon validate`,
 * so an invalid one is a configuration problem with its YAML path; the evaluator then finds it
 * compiled, by its JSON text.
 *
 * Ajv runs with `strictSchema`: an unknown keyword (a misspelt `minLenght`) or format is an error,
 * not silently ignored. Each schema gets an Ajv instance of its own, so two schemas may use the
 * same `$id` and a schema dropped from the cache leaves nothing behind.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export type JsonSchemaDraft = '2020-12' | '2019-09' | 'draft-07';

export const DEFAULT_JSON_SCHEMA_DRAFT: JsonSchemaDraft = '2020-12';

/** `$schema` URIs by draft (with or without `#`, over http or https). */
const DRAFT_URIS: Record<JsonSchemaDraft, string> = {
  '2020-12': 'json-schema.org/draft/2020-12/schema',
  '2019-09': 'json-schema.org/draft/2019-09/schema',
  'draft-07': 'json-schema.org/draft-07/schema',
};

const AJV_OPTIONS: Options = {
  allErrors: true,
  strictSchema: true,
  strictNumbers: true,
  // These three only warn about schemas that are valid but unusual; warnings would go to the console.
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  logger: false,
};

/** Compiled schemas kept, by draft and JSON text. */
const MAX_CACHED_SCHEMAS = 64;
const compiled = new Map<string, ValidateFunction>();

/** What is wrong with a schema: where in it (YAML path segments under the schema) and what. */
export interface JsonSchemaProblem {
  at: Array<string | number>;
  message: string;
}

/** A schema that cannot be compiled; `problems` say where and why. */
export class JsonSchemaError extends Error {
  readonly problems: JsonSchemaProblem[];
  constructor(problems: JsonSchemaProblem[]) {
    super(problems.map(({ at, message }) => (at.length > 0 ? `${at.join('.')}: ${message}` : message)).join('; '));
    this.name = 'JsonSchemaError';
    this.problems = problems;
  }
}

/** The draft a schema is written in, by its `$schema`; undefined for a `$schema` Evalon does not support. */
export function draftOf(schema: Record<string, unknown>): JsonSchemaDraft | undefined {
  const uri = schema.$schema;
  if (uri === undefined) return DEFAULT_JSON_SCHEMA_DRAFT;
  if (typeof uri !== 'string') return undefined;
  const bare = uri.replace(/^https?:\/\//, '').replace(/#$/, '');
  return (Object.keys(DRAFT_URIS) as JsonSchemaDraft[]).find((draft) => DRAFT_URIS[draft] === bare);
}

/** The schema's validator, compiled once per JSON text; throws `JsonSchemaError` for an invalid schema. */
export function compileJsonSchema(schema: Record<string, unknown>): ValidateFunction {
  const draft = draftOf(schema);
  if (draft === undefined) {
    throw new JsonSchemaError([
      {
        at: ['$schema'],
        message:
          `must name a supported draft (got ${JSON.stringify(schema.$schema)}; supported: ` +
          `https://json-schema.org/draft/2020-12/schema, https://json-schema.org/draft/2019-09/schema, ` +
          'http://json-schema.org/draft-07/schema#)',
      },
    ]);
  }
  const key = `${draft}\u0000${JSON.stringify(schema)}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const ajv = createAjv(draft);
  if (!ajv.validateSchema(schema)) {
    // The meta-schema reports one mistake several times over (`enum`, then `type`, then the
    // `anyOf` holding both): the first error at each place says it best.
    const first = new Map<string, ErrorObject>();
    for (const error of ajv.errors ?? []) if (!first.has(error.instancePath)) first.set(error.instancePath, error);
    throw new JsonSchemaError(
      [...first.values()].map((error) => ({
        at: pointerSegments(error.instancePath),
        message: `${error.message ?? 'is invalid'} (JSON Schema ${label(draft)})`,
      })),
    );
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    // Strict mode (an unknown keyword or format) and references that lead nowhere.
    throw new JsonSchemaError([{ at: [], message: `${(error as Error).message} (JSON Schema ${label(draft)})` }]);
  }
  if (compiled.size >= MAX_CACHED_SCHEMAS) compiled.clear();
  compiled.set(key, validate);
  return validate;
}

/** One line per validation error: `items[0].name: must be string`, `(root): must have required property 'x'`. */
export function describeJsonSchemaErrors(errors: readonly ErrorObject[]): string[] {
  return errors.map((error) => {
    const at = pointerSegments(error.instancePath);
    const where = at.length > 0 ? dotted(at) : '(root)';
    return `${where}: ${error.message ?? error.keyword}`;
  });
}

function label(draft: JsonSchemaDraft): string {
  return draft === 'draft-07' ? draft : `draft ${draft}`;
}

function createAjv(draft: JsonSchemaDraft): Ajv {
  const ajv =
    draft === '2020-12'
      ? new Ajv2020(AJV_OPTIONS)
      : draft === '2019-09'
        ? new Ajv2019(AJV_OPTIONS)
        : new Ajv(AJV_OPTIONS);
  addFormats.default(ajv);
  return ajv;
}

/** `/properties/a~1b/0` -> `['properties', 'a/b', 0]` (RFC 6901). */
function pointerSegments(pointer: string): Array<string | number> {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
}

function dotted(at: ReadonlyArray<string | number>): string {
  return at
    .map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
}
