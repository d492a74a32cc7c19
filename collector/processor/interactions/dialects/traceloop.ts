/**
 * OpenLLMetry / Traceloop (otel-genai.md §4.2): spans with `traceloop.span.kind` agent / tool /
 * workflow / task. Their LLM spans carry no span kind: they are semconv (legacy
 * `gen_ai.prompt.N.*` or new `gen_ai.input.messages`) and read by the semconv reader.
 * - agent and tool spans: `traceloop.entity.name`, `traceloop.entity.input` / `.output` (JSON; the
 *   decorators write the input as `{"args":[...],"kwargs":{...}}`);
 * - newer versions also write gen_ai.* on these spans, which is read as semconv first.
 */
import type { ToolCall } from '../../../../src/model/records.ts';
import type { SpanData } from '../../../model/span.ts';
import { errorTextOf, parseJsonValue, str } from './attributes.ts';
import { textMessage, unwrapResult } from './messages.ts';
import { semconvInput, semconvOutput, semconvUsage } from './semconv.ts';
import { once, type SpanRole, type SpanView } from './span-view.ts';

function traceloopRole(kind: unknown): SpanRole {
  if (kind === 'agent') return 'invocation';
  if (kind === 'tool') return 'tool';
  return 'other';
}

export function readTraceloop(span: SpanData): SpanView {
  const attributes = span.attributes;
  const role = traceloopRole(attributes['traceloop.span.kind']);
  return {
    span,
    role,
    input: once(() => semconvInput(attributes)),
    output: once(() => semconvOutput(attributes)),
    plainInput: once(() => textMessage('user', entityInputValue(attributes['traceloop.entity.input']))),
    plainOutput: once(() => textMessage('assistant', parseJsonValue(attributes['traceloop.entity.output']))),
    usage: semconvUsage(attributes),
    model: str(attributes, 'gen_ai.response.model') ?? str(attributes, 'gen_ai.request.model'),
    provider: str(attributes, 'gen_ai.provider.name') ?? str(attributes, 'gen_ai.system'),
    tool: role === 'tool' ? traceloopTool(span) : undefined,
  };
}

function traceloopTool(span: SpanData): ToolCall {
  const attributes = span.attributes;
  const call: ToolCall = {
    name: str(attributes, 'traceloop.entity.name') ?? str(attributes, 'gen_ai.tool.name') ?? span.name,
  };
  const callId = str(attributes, 'gen_ai.tool.call.id');
  if (callId !== undefined) call.callId = callId;
  const input = attributes['traceloop.entity.input'] ?? attributes['gen_ai.tool.call.arguments'];
  if (input !== undefined) call.arguments = entityArguments(parseJsonValue(input));
  const output = attributes['traceloop.entity.output'] ?? attributes['gen_ai.tool.call.result'];
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
