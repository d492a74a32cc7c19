/**
 * Mappings with a fixed set of keys, as configuration and scenario files are: any other key is a
 * problem naming the key and the closest known one, so a misspelt `max_turn` or `concurency` is
 * never silently ignored. A key that is known but not allowed in this place (`forbidden`) says where
 * it belongs instead.
 */
import * as z from 'zod';
import { describeValue } from './describe-value.ts';
import { suggestionHint } from './key-suggestions.ts';
import { isRecord } from './yaml-path.ts';

/**
 * The `params` of an unknown-key issue. The issue sits on the mapping (its path does not hold the
 * key) with a message of its own (`unknown key "x" (did you mean "y"?)`); a loader that words
 * problems differently reads the key and the known keys from here.
 */
export interface UnknownKey {
  kind: 'unknown-key';
  key: string;
  /** The keys the mapping allows; forbidden keys are left out. */
  known: readonly string[];
  /** A message for a key that is close to no known key, when the generic one would mislead. */
  explain?: (key: string) => string | undefined;
}

export interface StrictObjectOptions {
  /**
   * What the mapping is, for a value that is not one: `expected ${expected}, got a list`. Without it
   * the parse's error map words that problem.
   */
  expected?: string;
  /** See `UnknownKey.explain`. */
  explainUnknown?: (key: string) => string | undefined;
}

/** Marks the schemas `forbidden` makes, so `strictObject` leaves their keys out of its suggestions. */
const FORBIDDEN = Symbol('forbidden key');

/**
 * A key that must not be written here (a reserved key in the wrong place). `message` says where
 * it belongs. It is left out of the "did you mean" candidates.
 */
export function forbidden(message: string) {
  const schema = z
    .unknown()
    .optional()
    .superRefine((value, context) => {
      if (value !== undefined) context.addIssue({ code: 'custom', message });
    });
  // Marked on the object itself, leaving its type (and the declarations that name it) as zod's.
  (schema as unknown as Record<symbol, boolean>)[FORBIDDEN] = true;
  return schema;
}

export function strictObject<Shape extends z.ZodRawShape>(shape: Shape, options: StrictObjectOptions = {}) {
  const known = Object.keys(shape).filter((key) => !(FORBIDDEN in (shape[key] as object)));
  const { expected, explainUnknown } = options;
  const mapping = z.looseObject(
    shape,
    expected === undefined
      ? undefined
      : {
          error: (issue) =>
            issue.code === 'invalid_type'
              ? `expected ${expected}, got ${describeValue(issue.input, 'article')}`
              : undefined,
        },
  );
  // Checked even when other keys have problems (zod skips a refinement then), so all are reported at once.
  return mapping.superRefine(
    (value, context) => {
      if (!isRecord(value)) return;
      for (const key of Object.keys(value)) {
        if (Object.hasOwn(shape, key)) continue;
        const params: UnknownKey = { kind: 'unknown-key', key, known, explain: explainUnknown };
        context.addIssue({
          code: 'custom',
          message: `unknown key ${JSON.stringify(key)}${suggestionHint(key, known, 'known keys')}`,
          params: params as unknown as Record<string, unknown>,
        });
      }
    },
    { when: () => true },
  );
}

/** The unknown key an issue reports, when it is one. */
export function unknownKeyOf(issue: z.core.$ZodIssue): UnknownKey | undefined {
  if (issue.code !== 'custom') return undefined;
  const params = issue.params as Partial<UnknownKey> | undefined;
  return params?.kind === 'unknown-key' ? (params as UnknownKey) : undefined;
}
