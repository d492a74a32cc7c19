/**
 * OpenLLMetry / Traceloop: spans with `traceloop.span.kind` agent / tool /
 * workflow / task. Their LLM spans carry no span kind: they are semconv (legacy
 * `gen_ai.prompt.N.*` or new `gen_ai.input.messages`) and read by the semconv reader.
 * - agent and tool spans: `traceloop.entity.name`, `traceloop.entity.input` / `.output` (JSON; the
 *   decorators write the input as `{"args":[...],"kwargs":{...}}`);
 * - newer versions also write gen_ai.* on these spans, which is read as semconv first.
 */
import type { ToolCall } from '../../../../src/model/records.ts';
import type { SpanData } from '../../../model/span.ts';
import {
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_SYSTEM,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_CALL_RESULT,
  GEN_AI_TOOL_NAME,
  TRACELOOP_ENTITY_INPUT,
  TRACELOOP_ENTITY_NAME,
  TRACELOOP_ENTITY_OUTPUT,
  TRACELOOP_SPAN_KIND,
} from '../../../../src/model/attributes.ts';
import { errorTextOf, parseJsonValue, str } from './attribute-values.ts';
import { textMessage, unwrapResult } from './messages.ts';
import { semconvInput, semconvOutput, semconvUsage } from './semconv.ts';
import { once, type SpanRole, type SpanView } from './span-view.ts';

export function traceloopRole(kind: unknown): SpanRole {
  if (kind === 'agent') return 'invocation';
  if (kind === 'tool') return 'tool';
  return 'other';
}

export function readTraceloop(span: SpanData): SpanView {
  const attributes = span.attributes;
  const role = traceloopRole(attributes[TRACELOOP_SPAN_KIND]);
  return {
    span,
    role,
    input: once(() => semconvInput(attributes)),
    output: once(() => semconvOutput(attributes)),
    plainInput: once(() => textMessage('user', entityInputValue(attributes[TRACELOOP_ENTITY_INPUT]))),
    plainOutput: once(() => textMessage('assistant', parseJsonValue(attributes[TRACELOOP_ENTITY_OUTPUT]))),
    usage: semconvUsage(attributes),
    model: str(attributes, GEN_AI_RESPONSE_MODEL) ?? str(attributes, GEN_AI_REQUEST_MODEL),
    provider: str(attributes, GEN_AI_PROVIDER_NAME) ?? str(attributes, GEN_AI_SYSTEM),
    tool: role === 'tool' ? traceloopTool(span) : undefined,
  };
}

function traceloopTool(span: SpanData): ToolCall {
  const attributes = span.attributes;
  const call: ToolCall = {
    name: str(attributes, TRACELOOP_ENTITY_NAME) ?? str(attributes, GEN_AI_TOOL_NAME) ?? span.name,
  };
  const callId = str(attributes, GEN_AI_TOOL_CALL_ID);
  if (callId !== undefined) call.callId = callId;
  const input = attributes[TRACELOOP_ENTITY_INPUT] ?? attributes[GEN_AI_TOOL_CALL_ARGUMENTS];
  if (input !== undefined) call.arguments = entityArguments(parseJsonValue(input));
  const output = attributes[TRACELOOP_ENTITY_OUTPUT] ?? attributes[GEN_AI_TOOL_CALL_RESULT];
  if (output !== undefined) call.result = unwrapResult(output);
  const error = errorTextOf(span);
  if (error !== undefined) call.error = error;
  return call;
}

interface DecoratorInput {
  args: unknown[];
  kwargs: Record<string, unknown>;
}

function decoratorInput(value: unknown): DecoratorInput | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (!keys.every((key) => key === 'args' || key === 'kwargs')) return undefined;
  const args = Array.isArray(record.args) ? record.args : [];
  const kwargs =
    typeof record.kwargs === 'object' && record.kwargs !== null ? (record.kwargs as Record<string, unknown>) : {};
  return { args, kwargs };
}

/** A tool's arguments: the keyword arguments, or the single positional one, else the decorator's record. */
function entityArguments(value: unknown): unknown {
  const input = decoratorInput(value);
  if (!input) return value;
  const named = Object.keys(input.kwargs).length;
  if (input.args.length === 0 && named > 0) return input.kwargs;
  if (input.args.length === 1 && named === 0) return input.args[0];
  return value;
}

/** An agent's input: its single argument (the question) when it has one, else the decorator's record. */
function entityInputValue(raw: unknown): unknown {
  const value = parseJsonValue(raw);
  const input = decoratorInput(value);
  if (!input) return value;
  const values = [...input.args, ...Object.values(input.kwargs)];
  return values.length === 1 ? values[0] : value;
}
