/**
 * The transcript and the tool calls of one interaction, in time order:
 * - the input messages, at the invocation's start;
 * - every model call's output messages, at the call's end (a message made only of tool calls is
 *   not repeated as a message: its calls are `tool_call` entries);
 * - one `tool_call` entry per tool call, from the tool spans (at their start, but never before the
 *   model call that asked for them) and from `tool_call` parts that no tool span executed. A part
 *   and a span are the same call when their call ids match (or, lacking ids, by name in order);
 * - results missing on a call are taken from `tool_call_response` parts of later model inputs;
 * - one `agent_call` entry per nested interaction of another agent, at its start.
 */
import type { Message, MessagePart, ToolCall, TranscriptEntry } from '../../model/interaction.ts';
import { nanosToIso } from '../../model/span.ts';
import { textOf, unwrapResult } from './dialects/messages.ts';
import type { SpanView } from './dialects/span-view.ts';

export interface TranscriptInput {
  /** When the interaction started (ns): the time of the input messages. */
  startNanos: number;
  /** When it ended (ns): the time of an output that no model call recorded. */
  endNanos: number;
  input: Message[];
  /** The record's output, used when no model call recorded output messages. */
  output: Message[];
  /** Invocation spans (root first); their inputs, like the model calls', may hold tool results. */
  invocations: SpanView[];
  modelCalls: SpanView[];
  tools: SpanView[];
  nested: Array<{ startNanos: number; agentId: string; interactionId: string }>;
}

interface Timed {
  at: number;
  seq: number;
  entry: TranscriptEntry;
}

interface PendingCall {
  at: number;
  /** Index of the `tool_call` part that asked for it; Infinity for a span no part asked for. */
  rank: number;
  call: ToolCall;
  fromSpan: boolean;
  matched: boolean;
  entry?: Timed;
}

export function buildTranscript(input: TranscriptInput): { transcript: TranscriptEntry[]; toolCalls: ToolCall[] } {
  const timed: Timed[] = [];
  const add = (at: number, entry: TranscriptEntry): Timed => {
    const item = { at, seq: timed.length, entry };
    timed.push(item);
    return item;
  };

  for (const message of input.input) add(input.startNanos, messageEntry(message));

  // Assistant turns, and the tool calls they asked for.
  const requested: Array<{ part: ToolCallPart; at: number }> = [];
  const addOutput = (messages: Message[], at: number) => {
    for (const message of messages) {
      if (hasContent(message)) add(at, messageEntry(message));
      for (const part of message.parts) if (isToolCallPart(part)) requested.push({ part, at });
    }
  };
  let modelOutput = false;
  for (const call of input.modelCalls) {
    const messages = call.output();
    if (!messages || messages.length === 0) continue;
    modelOutput = true;
    addOutput(messages, call.span.endTimeUnixNano);
  }
  if (!modelOutput) addOutput(input.output, input.endNanos);

  const calls = matchToolCalls(input.tools, requested);
  fillResults(calls, input);
  // Entries at the same time keep their insertion order: calls go in the order the model asked for
  // them (tool spans often start within the same millisecond), after the reply that asked.
  const inRequestOrder = calls.map((pending, index) => ({ pending, index }));
  inRequestOrder.sort((a, b) => a.pending.rank - b.pending.rank || a.index - b.index);
  for (const { pending } of inRequestOrder) {
    pending.entry = add(pending.at, { type: 'tool_call', ...pending.call });
  }

  for (const nested of input.nested) {
    add(nested.startNanos, { type: 'agent_call', agentId: nested.agentId, interactionId: nested.interactionId });
  }

  timed.sort((a, b) => a.at - b.at || a.seq - b.seq);
  for (const item of timed) item.entry.time = nanosToIso(item.at);
  const toolCalls = calls
    .slice()
    .sort((a, b) => a.entry!.at - b.entry!.at || a.entry!.seq - b.entry!.seq)
    .map((pending) => pending.call);
  return { transcript: timed.map((item) => item.entry), toolCalls };
}

type ToolCallPart = { type: 'tool_call'; id?: string; name: string; arguments?: unknown };

function isToolCallPart(part: MessagePart): part is ToolCallPart {
  return part.type === 'tool_call' && typeof part.name === 'string';
}

/** A message worth a transcript entry: it says something beyond the tool calls it makes. */
function hasContent(message: Message): boolean {
  return message.parts.some((part) => part.type !== 'tool_call' && !(part.type === 'text' && part.content === ''));
}

function messageEntry(message: Message): TranscriptEntry {
  const entry: TranscriptEntry = { type: 'message', role: message.role, content: textOf(message.parts) };
  // Parts are kept only when the text alone does not say everything (tool calls, reasoning, media).
  if (message.parts.some((part) => part.type !== 'text')) entry.parts = message.parts;
  return entry;
}

/** Tool spans first, each once; then every requested call that no span executed. */
function matchToolCalls(tools: SpanView[], requested: Array<{ part: ToolCallPart; at: number }>): PendingCall[] {
  const calls: PendingCall[] = [];
  const byId = new Map<string, PendingCall>();
  for (const view of tools) {
    if (!view.tool) continue;
    const pending: PendingCall = {
      at: view.span.startTimeUnixNano,
      rank: Number.POSITIVE_INFINITY,
      call: { ...view.tool },
      fromSpan: true,
      matched: false,
    };
    calls.push(pending);
    if (pending.call.callId !== undefined && !byId.has(pending.call.callId)) byId.set(pending.call.callId, pending);
  }
  const seenIds = new Set<string>();
  for (const [rank, { part, at }] of requested.entries()) {
    const id = part.id;
    if (id !== undefined) {
      // The same call may be reported twice (a Vercel root repeats its last step's calls).
      if (seenIds.has(id)) continue;
      seenIds.add(id);
    }
    const match =
      (id !== undefined ? byId.get(id) : undefined) ??
      calls.find(
        (pending) =>
          pending.fromSpan &&
          !pending.matched &&
          pending.call.name === part.name &&
          (pending.call.callId === undefined || id === undefined),
      );
    if (match) {
      match.matched = true;
      match.rank = rank;
      if (match.call.callId === undefined && id !== undefined) match.call.callId = id;
      if (match.call.arguments === undefined && part.arguments !== undefined) match.call.arguments = part.arguments;
      // A tool may start while the reply that asks for it still streams; it follows the reply.
      if (match.at < at) match.at = at;
      continue;
    }
    const call: ToolCall = { name: part.name };
    if (id !== undefined) call.callId = id;
    if (part.arguments !== undefined) call.arguments = part.arguments;
    calls.push({ at, rank, call, fromSpan: false, matched: true });
  }
  return calls;
}

/** Results for calls that have none, from the `tool_call_response` parts sent back to the model. */
function fillResults(calls: PendingCall[], input: TranscriptInput): void {
  if (!calls.some((pending) => pending.call.result === undefined && pending.call.callId !== undefined)) return;
  const responses = new Map<string, unknown>();
  const collect = (messages: Message[] | undefined) => {
    for (const message of messages ?? []) {
      for (const part of message.parts) {
        if (part.type === 'tool_call_response' && typeof part.id === 'string' && !responses.has(part.id)) {
          responses.set(part.id, unwrapResult(part.response));
        }
      }
    }
  };
  for (const view of input.modelCalls) collect(view.input());
  for (const view of input.invocations) collect(view.input());
  for (const pending of calls) {
    const id = pending.call.callId;
    if (pending.call.result === undefined && id !== undefined && responses.has(id)) pending.call.result = responses.get(id);
  }
}
