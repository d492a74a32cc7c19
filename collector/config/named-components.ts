/**
 * A section whose keys are component ids (`type` or `type/name`, component-id.ts), as `exporters`
 * is: each entry is checked by the schema of its type's factory, so `otlphttp/tempo` and
 * `otlphttp/langfuse` are two `otlphttp` exporters with their own settings. A key of an unknown
 * type, or a malformed id, is a problem at that key with a "did you mean".
 */
import * as z from 'zod';
import { suggestionHint } from '../../src/config/key-suggestions.ts';
import { ComponentIdError, parseComponentId } from './component-id.ts';
import { configErrorMap, emptyAsMapping } from './schema-kit.ts';

interface NamedFactory {
  readonly schema: z.ZodType;
}

/** `kind` words the message: `is not a known exporter type`. */
export function namedComponentSection(kind: string, factories: Readonly<Record<string, NamedFactory>>) {
  const types = Object.keys(factories);
  return emptyAsMapping(z.record(z.string(), z.unknown())).transform((entries, context) => {
    const configured: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(entries)) {
      let type: string;
      let name: string | undefined;
      try {
        ({ type, name } = parseComponentId(key));
      } catch (error) {
        if (!(error instanceof ComponentIdError)) throw error;
        context.addIssue({ code: 'custom', path: [key], message: error.message });
        continue;
      }
      const factory = factories[type];
      if (!factory) {
        // A bare key reads as any other unknown key; in `type/name`, the type is what is unknown.
        const message =
          name === undefined
            ? `is not a known key${suggestionHint(type, types, 'known keys')}`
            : `has an unknown ${kind} type ${JSON.stringify(type)}${suggestionHint(type, types, 'known types')}`;
        context.addIssue({ code: 'custom', path: [key], message });
        continue;
      }
      // The entry's own problems keep their paths below the key and the messages of the file's parse.
      const parsed = factory.schema.safeParse(value, { error: configErrorMap, reportInput: true });
      if (parsed.success) configured[key] = parsed.data;
      else for (const issue of parsed.error.issues) context.addIssue({ ...issue, path: [key, ...issue.path] } as never);
    }
    return configured;
  });
}
