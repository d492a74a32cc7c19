/**
 * The evaluated participant's `tools`: which tools the in-process agent is given. Each entry names
 * its source: `builtin` (one of the mock tools that act on the context, by name) or `recorded`
 * (answers with the recordings written in the entry). Without `tools` the agent has every built-in
 * tool; `tools: []` gives it none.
 */
import { z } from 'zod';
import { describeValue } from '../../config/describe-value.ts';
import { closestKey } from '../../config/key-suggestions.ts';
import { strictObject } from '../../config/strict-object.ts';
import type { JsonObject, JsonValue } from '../../judge/json-value.ts';
import { builtInTools } from '../tools/tool-registry.ts';
import type { ToolRecording, ToolSpec } from './scenario.ts';

/** What the Messages API accepts as a tool name. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The arguments schema of a recorded tool that writes none: any mapping. */
export const DEFAULT_TOOL_INPUT_SCHEMA: JsonObject = { type: 'object' };

const BUILT_IN_NAMES = builtInTools().map((tool) => tool.name);

const got = (value: unknown) => describeValue(value, 'article');
const jsonValue: z.ZodType<JsonValue> = z.json();
const jsonMapping = (what: string) =>
  z.record(z.string(), jsonValue, { error: (issue) => `expected ${what} as a mapping, got ${got(issue.input)}` });

const recording = strictObject(
  {
    arguments: jsonMapping('the arguments').default({}),
    result: jsonValue.optional(),
    error: z.string({ error: (issue) => `expected the error message as a string, got ${got(issue.input)}` }).optional(),
  },
  { expected: 'a recording (arguments, and result or error)' },
).transform((raw, ctx): ToolRecording => {
  const args = raw.arguments as JsonObject;
  if (raw.error !== undefined) {
    if (raw.result !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: 'expected result or error, not both (a call either returned or failed)',
      });
    return { arguments: args, error: raw.error };
  }
  if (raw.result === undefined)
    ctx.addIssue({
      code: 'custom',
      message: 'expected result or error (what the call returned, or the error it failed with)',
    });
  return { arguments: args, result: raw.result ?? null };
});

const toolEntry = strictObject(
  {
    name: z
      .string({ error: (issue) => `expected the tool name as a string, got ${got(issue.input)}` })
      .regex(TOOL_NAME, { error: 'expected a tool name of letters, digits, _ and - (at most 64 characters)' }),
    source: z.enum(['recorded', 'builtin'], {
      error: (issue) => `expected recorded or builtin, got ${got(issue.input)}`,
    }),
    description: z
      .string({ error: (issue) => `expected the description as a string, got ${got(issue.input)}` })
      .optional(),
    input_schema: jsonMapping('a JSON schema')
      .refine((schema) => schema.type === 'object', {
        error: 'expected an object schema (type: object: tool arguments are a mapping)',
      })
      .optional(),
    recordings: z
      .array(recording, { error: (issue) => `expected a list of recordings, got ${got(issue.input)}` })
      .optional(),
  },
  { expected: 'a tool mapping (name, source, and for recorded tools recordings)' },
).transform((raw, ctx): ToolSpec => {
  if (raw.source === 'builtin') {
    for (const key of ['description', 'input_schema', 'recordings'] as const) {
      if (raw[key] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'is only for source: recorded (a built-in tool brings its own)',
        });
    }
    if (!BUILT_IN_NAMES.includes(raw.name)) {
      const closest = closestKey(raw.name, BUILT_IN_NAMES);
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message:
          `unknown built-in tool "${raw.name}" ` +
          (closest ? `(did you mean "${closest}"?)` : '(docs/simulation.md lists the built-in tools)'),
      });
    }
    return { source: 'builtin', name: raw.name };
  }
  if (raw.recordings === undefined || raw.recordings.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['recordings'],
      message: 'a recorded tool needs at least one recording (arguments, and result or error)',
    });
  }
  return {
    source: 'recorded',
    name: raw.name,
    description: raw.description ?? '',
    inputSchema: (raw.input_schema as JsonObject | undefined) ?? { ...DEFAULT_TOOL_INPUT_SCHEMA },
    recordings: raw.recordings ?? [],
  };
});

/** The `tools` list: entries with unique names. */
export const toolsSchema = z
  .array(toolEntry, { error: (issue) => `expected a list of tools, got ${got(issue.input)}` })
  .superRefine((tools, ctx) => {
    tools.forEach((tool, index) => {
      const first = tools.findIndex((other) => other.name === tool.name);
      if (first !== index)
        ctx.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `duplicate tool name "${tool.name}" (first used at tools[${first}])`,
        });
    });
  });
